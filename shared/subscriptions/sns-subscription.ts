/**
 * Reading and changing one record's SNS subscription. Separate from topics.ts so that the
 * functions that only need these calls do not bundle topic creation and deletion.
 */
import { GetSubscriptionAttributesCommand, SetSubscriptionAttributesCommand, type SNSClient } from '@aws-sdk/client-sns';

/** Replaces the subscription's filter policy. */
export async function setFilterPolicy(sns: SNSClient, subscriptionArn: string, filterPolicy: string): Promise<void> {
  await sns.send(
    new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: 'FilterPolicy', AttributeValue: filterPolicy }),
  );
}

/**
 * Whether the endpoint has confirmed the subscription (SNS's PendingConfirmation is false). A
 * subscription SNS no longer has is not confirmed: nothing reaches its endpoint.
 */
export async function isConfirmed(sns: SNSClient, subscriptionArn: string): Promise<boolean> {
  try {
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
    return Attributes?.PendingConfirmation === 'false';
  } catch (error) {
    if ((error as Error).name === 'NotFoundException') return false;
    throw error;
  }
}
