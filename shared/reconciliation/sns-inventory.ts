/**
 * Everything SNS holds in the account, page by page, for the reconciler: every topic and every
 * subscription. ListTopics and ListSubscriptions answer 100 entries a page, so 100,000 topics take
 * 1,000 calls each; the SDK's retries (shared/aws/client-options.ts) absorb throttling.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { ListSubscriptionsCommand, ListTopicsCommand } from '../aws/sns-commands';

/** 100 entries a page: 10 million entries, far beyond SNS's quotas; the bound only stops a listing that never ends. */
const MAX_PAGES = 100_000;

export interface ListedSubscription {
  /** `PendingConfirmation` while the endpoint has not confirmed: SNS lists no ARN for those. */
  subscriptionArn: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
}

/**
 * SNS's stand-in for the ARN of a subscription its endpoint has not confirmed: "If still
 * unconfirmed, it will show as PendingConfirmation" (SNS Developer Guide, "Step 3: Confirm your
 * Amazon SNS subscription", https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.confirm.html).
 * An e-mail subscription SNS deactivated for exceeding its delivery rate is back in that state
 * (AWS re:Post Knowledge Center, "Why did I get an email from AWS that states that my Amazon SNS
 * subscription was manually deactivated?", https://repost.aws/knowledge-center/sns-email-subscription-disabled).
 * The ListSubscriptions API reference itself does not mention the placeholder.
 */
export const PENDING_CONFIRMATION = 'PendingConfirmation';

export async function listAllTopicArns(sns: SNSClient): Promise<string[]> {
  const arns: string[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await sns.send(new ListTopicsCommand({ NextToken: nextToken }));
    for (const topic of result.Topics ?? []) if (topic.TopicArn) arns.push(topic.TopicArn);
    nextToken = result.NextToken;
    if (!nextToken) return arns;
  }
  throw new Error(`ListTopics did not end within ${MAX_PAGES} pages.`);
}

export async function listAllSubscriptions(sns: SNSClient): Promise<ListedSubscription[]> {
  const subscriptions: ListedSubscription[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await sns.send(new ListSubscriptionsCommand({ NextToken: nextToken }));
    for (const { SubscriptionArn, TopicArn, Protocol, Endpoint } of result.Subscriptions ?? []) {
      subscriptions.push({
        subscriptionArn: SubscriptionArn ?? '',
        topicArn: TopicArn ?? '',
        protocol: Protocol ?? '',
        endpoint: Endpoint ?? '',
      });
    }
    nextToken = result.NextToken;
    if (!nextToken) return subscriptions;
  }
  throw new Error(`ListSubscriptions did not end within ${MAX_PAGES} pages.`);
}
