/**
 * The settings of each SNS subscription set back as the service set them. A topic policy cannot
 * deny sns:SetSubscriptionAttributes (SNS refuses a topic policy naming it: docs/security.md,
 * "Who may subscribe to or change a topic"), so any principal of the account allowed it by IAM
 * can repoint a subscription's dead letters to a queue of its own, make its messages raw (no
 * longer SNS-signed), filter them away or change its retries. Each run reads the attributes of
 * the subscriptions that exist (GetSubscriptionAttributes) and sets back, from the record and
 * the configuration, what differs:
 * - RedrivePolicy: the delivery dead-letter queue (when one is configured);
 * - DeliveryPolicy (http/https): the retries and the record's throttle (delivery-policy.ts);
 * - RawMessageDelivery: false (the service never sets it);
 * - FilterPolicy: none (the dispatcher chooses recipients; delivery-policy.ts says why).
 * At most SETTINGS_CHECKS_PER_RUN subscriptions are read a run: with more, each run takes the
 * next window of them (by configId, rotating with the 15-minute slot of the run), so every
 * subscription is read within a few runs at the scale docs/scale.md plans for.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { GetSubscriptionAttributesCommand, SetSubscriptionAttributesCommand } from '../aws/sns-commands';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import { logger } from '../logger';
import { deliveryPolicyFor, deliveryPolicyHolds, takesDeliveryPolicy } from '../subscriptions/delivery-policy';
import type { Subscription } from '../subscriptions/model';
import { CHANGES_IN_FLIGHT } from './passes';

/** Reads a run makes at most: about 100 s at 4 in flight and 20 ms a read, within the run's 5 minutes. */
export const SETTINGS_CHECKS_PER_RUN = 20_000;
/** The window of subscriptions a run reads moves on every slot (the default run interval). */
const SLOT_MS = 15 * 60 * 1000;

export interface SubscriptionSettingsDeps {
  sns: SNSClient;
  dryRun: boolean;
  deadLetterQueueArn: string | undefined;
  now: () => number;
}

/** One attribute to set back, and its value. */
interface Setting {
  name: 'RedrivePolicy' | 'DeliveryPolicy' | 'RawMessageDelivery' | 'FilterPolicy';
  value: string;
}

/** What differs between the attributes SNS holds and those the service gave the subscription. */
export function driftedSettings(held: Record<string, string>, record: Subscription, deadLetterQueueArn: string | undefined): Setting[] {
  const drifted: Setting[] = [];
  if (deadLetterQueueArn && redriveTargetOf(held.RedrivePolicy) !== deadLetterQueueArn) {
    drifted.push({ name: 'RedrivePolicy', value: JSON.stringify({ deadLetterTargetArn: deadLetterQueueArn }) });
  }
  if (takesDeliveryPolicy(record.protocol) && !deliveryPolicyHolds(held.DeliveryPolicy, record)) {
    drifted.push({ name: 'DeliveryPolicy', value: deliveryPolicyFor(record) });
  }
  if ((held.RawMessageDelivery ?? 'false').toLowerCase() !== 'false') drifted.push({ name: 'RawMessageDelivery', value: 'false' });
  if ((held.FilterPolicy ?? '') !== '') drifted.push({ name: 'FilterPolicy', value: '' });
  return drifted;
}

function redriveTargetOf(policy: string | undefined): unknown {
  try {
    return (JSON.parse(policy ?? 'null') as { deadLetterTargetArn?: unknown } | null)?.deadLetterTargetArn;
  } catch {
    return undefined;
  }
}

/** The subscriptions this run reads: all, or this slot's window of them. */
export function windowOf(existing: readonly Subscription[], now: number, limit = SETTINGS_CHECKS_PER_RUN): Subscription[] {
  if (existing.length <= limit) return [...existing];
  const sorted = [...existing].sort((a, b) => (a.configId < b.configId ? -1 : 1));
  const start = (Math.floor(now / SLOT_MS) * limit) % sorted.length;
  return [...sorted, ...sorted].slice(start, start + limit);
}

/**
 * Reads the attributes of `existing` (records whose SNS subscription exists) and sets back what
 * drifted. Returns how many subscriptions had their delivery policy set, and how many had any
 * other setting set (would have, in a dry run).
 */
export async function restoreSubscriptionSettings(
  deps: SubscriptionSettingsDeps,
  existing: readonly Subscription[],
  counts: { errors: number },
): Promise<[deliveryPoliciesSet: number, otherSettingsSet: number]> {
  const { sns, dryRun } = deps;
  let deliveryPoliciesSet = 0;
  let otherSettingsSet = 0;
  await mapWithConcurrency(windowOf(existing, deps.now()), CHANGES_IN_FLIGHT, async (record) => {
    const item = { portalId: record.portalId, configId: record.configId, subscriptionArn: record.subscriptionArn };
    try {
      const { Attributes = {} } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: record.subscriptionArn }));
      const drifted = driftedSettings(Attributes, record, deps.deadLetterQueueArn);
      if (drifted.length === 0) return;
      if (!dryRun) {
        for (const { name, value } of drifted) {
          await sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn: record.subscriptionArn, AttributeName: name, AttributeValue: value }));
        }
      }
      if (drifted.some(({ name }) => name === 'DeliveryPolicy')) deliveryPoliciesSet++;
      if (drifted.some(({ name }) => name !== 'DeliveryPolicy')) otherSettingsSet++;
      const settings = drifted.map(({ name }) => name);
      logger.info(dryRun ? 'drifted subscription settings would be set again' : 'drifted subscription settings set again', { ...item, settings });
    } catch (error) {
      // Gone since the listing: the next run counts it with the subscriptions gone.
      if ((error as Error).name === 'NotFoundException') return;
      counts.errors++;
      logger.error('could not check or set the settings of a subscription', { ...item, error: error as Error });
    }
  });
  return [deliveryPoliciesSet, otherSettingsSet];
}
