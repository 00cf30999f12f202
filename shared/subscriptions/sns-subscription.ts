/**
 * What SNS says of one record's SNS subscription. Separate from topics.ts so that the functions
 * that only read it do not bundle topic creation and deletion.
 */
import { GetSubscriptionAttributesCommand, type SNSClient } from '@aws-sdk/client-sns';

/**
 * - `confirmed`: the endpoint confirmed; SNS delivers to it.
 * - `pending`: SNS waits for the endpoint to confirm (after a subscribe, or for an e-mail
 *   address SNS deactivated for exceeding its e-mail rate); nothing is delivered meanwhile.
 * - `unsubscribed`: SNS no longer has the subscription: the endpoint unsubscribed (the
 *   UnsubscribeURL of every message), or it never confirmed and SNS deleted it (docs/delivery.md).
 *   Only `POST /confirm` subscribes it again.
 */
export type SubscriptionState = 'confirmed' | 'pending' | 'unsubscribed';

/** SNS's stand-in for the ARN of a pending subscription, when Subscribe was not asked for the real one. */
const PENDING_ARN = 'pending confirmation';

/** The state of the subscription, from SNS (GetSubscriptionAttributes; NotFound when it is gone). */
export async function subscriptionStateOf(sns: SNSClient, subscriptionArn: string): Promise<SubscriptionState> {
  if (subscriptionArn.toLowerCase() === PENDING_ARN) return 'pending';
  try {
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
    return Attributes?.PendingConfirmation === 'false' ? 'confirmed' : 'pending';
  } catch (error) {
    if ((error as Error).name === 'NotFoundException') return 'unsubscribed';
    throw error;
  }
}
