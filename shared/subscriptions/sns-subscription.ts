/**
 * What SNS says of one record's SNS subscription. Separate from topics.ts so that the functions
 * that only read it do not bundle topic creation and deletion.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { GetSubscriptionAttributesCommand } from '../aws/sns-commands';

import type { SubscriptionState } from '../data/subscription-record';

/**
 * - `confirmed`: the endpoint confirmed; SNS delivers to it.
 * - `pending`: SNS waits for the endpoint to confirm (after a subscribe, or for an e-mail
 *   address SNS deactivated for exceeding its e-mail rate); nothing is delivered meanwhile.
 * - `unsubscribed`: SNS no longer has the subscription: the endpoint unsubscribed (the
 *   UnsubscribeURL of every message), or it never confirmed and SNS deleted it (docs/delivery.md).
 *   Only `POST /confirm` subscribes it again.
 */
export type { SubscriptionState };

/** SNS's stand-in for the ARN of a pending subscription, when Subscribe was not asked for the real one. */
const PENDING_ARN = 'pending confirmation';

/** What SNS holds of one subscription. */
export interface SnsSubscription {
  state: SubscriptionState;
  /**
   * The endpoint in full, password included: GetSubscriptionAttributes is the one place SNS
   * shows it ("HTTPS URLs are only retrievable from the Amazon SNS GetSubscriptionAttributes API
   * action", SNS Developer Guide, "Fanout Amazon SNS notifications to HTTPS endpoints"). Absent
   * when SNS no longer has the subscription.
   */
  endpoint?: string;
}

/** The subscription as SNS holds it (GetSubscriptionAttributes; NotFound when it is gone). */
export async function snsSubscriptionOf(sns: SNSClient, subscriptionArn: string): Promise<SnsSubscription> {
  if (subscriptionArn.toLowerCase() === PENDING_ARN) return { state: 'pending' };
  try {
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
    return { state: Attributes?.PendingConfirmation === 'false' ? 'confirmed' : 'pending', endpoint: Attributes?.Endpoint };
  } catch (error) {
    if ((error as Error).name === 'NotFoundException') return { state: 'unsubscribed' };
    throw error;
  }
}

/** The state of the subscription, from SNS. */
export async function subscriptionStateOf(sns: SNSClient, subscriptionArn: string): Promise<SubscriptionState> {
  return (await snsSubscriptionOf(sns, subscriptionArn)).state;
}
