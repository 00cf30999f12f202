/**
 * The state list answers for each record: the stored one when it cannot have changed without
 * the service writing it, SNS's otherwise (docs/api.md#subscription-state).
 *
 * - `confirmed` is trusted: SNS is not asked. A confirmation that lapses (the endpoint
 *   unsubscribed, an e-mail subscription SNS deactivated) is written by the next reconciler run,
 *   which sees it in ListSubscriptions.
 * - `unsubscribed` is trusted too: SNS never brings a deleted subscription's ARN back, and the
 *   only ways to a new one (confirm, the reconciler's repair) store its state with it.
 * - `pending`, or no state (records written before it was stored), is asked of SNS: the endpoint
 *   may have confirmed since, without the service seeing it. A state SNS gives that spares later
 *   lists the question (`confirmed`, `unsubscribed`) is written back, conditionally on the record
 *   still naming the subscription asked about and holding no state observed since.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import { logger } from '../logger';
import type { Subscription } from './model';
import type { SubscriptionRepository } from '../data/subscription-repository';
import { type SubscriptionState, subscriptionStateOf } from './sns-subscription';

export interface SubscriptionStatesDeps {
  sns: SNSClient;
  repository: Pick<SubscriptionRepository, 'storeSubscriptionState'>;
}

/** A portal's default limit of 10 all at once; larger portals 10 at a time, not all in one burst. */
const LOOKUPS_IN_FLIGHT = 10;
/**
 * Write-backs per list, at most. Only records written before the state was stored can need many
 * (a large portal listed between the deployment and the reconciler's first run, which stores
 * every record's state); the rest wait for the next list or that run, so one list stays short.
 */
const MAX_WRITE_BACKS = 100;

/** The states list trusts (see above), and so stores when SNS answers one. */
const SETTLED: ReadonlySet<SubscriptionState | undefined> = new Set<SubscriptionState>(['confirmed', 'unsubscribed']);

/** The state of each subscription, in order. */
export async function subscriptionStatesOf(
  { sns, repository }: SubscriptionStatesDeps,
  subscriptions: readonly Subscription[],
): Promise<SubscriptionState[]> {
  const states = subscriptions.map(({ subscriptionState }) => (SETTLED.has(subscriptionState) ? subscriptionState : undefined));
  const unsettled = subscriptions.filter((_, index) => states[index] === undefined);
  let writeBacks = 0;
  const answered = await mapWithConcurrency(unsettled, LOOKUPS_IN_FLIGHT, async (subscription) => {
    const observedAt = new Date().toISOString();
    const subscriptionState = await subscriptionStateOf(sns, subscription.subscriptionArn);
    if (SETTLED.has(subscriptionState) && writeBacks < MAX_WRITE_BACKS) {
      writeBacks++;
      try {
        // Not over a state observed after this look-up (by the reconciler, say): it is newer.
        await repository.storeSubscriptionState(subscription, { subscriptionState, observedAt });
      } catch (error) {
        // The answer is right without it: the next list or reconciler run stores it.
        logger.warn('could not store a subscription state', { configId: subscription.configId, error: error as Error });
      }
    }
    return subscriptionState;
  });
  let next = 0;
  return states.map((state) => state ?? answered[next++]!);
}
