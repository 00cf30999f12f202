import type { SNSClient } from '@aws-sdk/client-sns';
import { filterPolicyFor } from './delivery-policy';
import type { Subscription } from './model';
import type { SubscriptionRepository } from './repository';
import { setFilterPolicy } from './sns-subscription';

export interface ChangeDeliveryDeps {
  repository: SubscriptionRepository;
  sns: SNSClient;
}

/** What decides which messages reach the endpoint: the event list and the status. */
export type DeliveryChanges = Partial<Pick<Subscription, 'events' | 'status'>>;

// Each further round means another change of events or status landed meanwhile; a few rounds
// always settle, since every such change ends with its own round.
const MAX_FILTER_ROUNDS = 3;

/**
 * Changes the record's events or status, then makes its SNS subscription's filter policy say
 * the same, so that SNS itself holds back what the subscription did not choose. The record is
 * written first: if setting the filter fails, the error is answered and the same request
 * repeated completes it (the write is idempotent).
 *
 * Two changes at once (an update and an activate) could set their filters in the opposite
 * order to their writes and leave the older filter in place; so after setting it, the record is
 * read again, and while it asks for another filter, that one is set. The last filter set is
 * then always the one of the last write. Answers the record as this change wrote it.
 */
export async function changeDelivery(
  { repository, sns }: ChangeDeliveryDeps,
  portalId: string,
  configId: string,
  changes: DeliveryChanges,
): Promise<Subscription> {
  const written = await repository.update(portalId, configId, changes);
  let current: Subscription | undefined = written;
  for (let round = 1; current && round <= MAX_FILTER_ROUNDS; round++) {
    const filterPolicy = filterPolicyFor(current);
    await setFilterPolicy(sns, current.subscriptionArn, filterPolicy);
    const latest: Subscription | undefined = await repository.find(portalId, configId);
    current = latest && filterPolicyFor(latest) !== filterPolicy ? latest : undefined;
  }
  return written;
}
