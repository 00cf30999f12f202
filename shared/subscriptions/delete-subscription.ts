import { mayHaveBeenApplied } from '../aws/failures';
import { SubscriptionNotFoundError } from './errors';
import type { SubscriptionRepository } from '../data/subscription-repository';
import type { SubscriptionTopics } from './topics';

export interface DeleteSubscriptionDeps {
  repository: Pick<SubscriptionRepository, 'find' | 'remove' | 'isStored'>;
  topics: Pick<SubscriptionTopics, 'close'>;
}

/**
 * Removes the SNS topic (and with it the SNS subscription) first, then the record. If the
 * record delete fails, the record is still there to address, and repeating the delete
 * completes it (deleting a topic that is already gone succeeds); the reverse order could
 * strand a topic no request can reach.
 */
export async function deleteSubscription(
  { repository, topics }: DeleteSubscriptionDeps,
  portalId: string,
  configId: string,
): Promise<void> {
  const subscription = await repository.find(portalId, configId);
  if (!subscription) throw new SubscriptionNotFoundError(configId);
  await topics.close(subscription);
  try {
    await repository.remove(portalId, configId);
  } catch (error) {
    // The answer was lost but the delete may have happened: if the record is gone, it did.
    if (mayHaveBeenApplied(error) && (await repository.isStored(portalId, configId)) === false) return;
    throw error;
  }
}
