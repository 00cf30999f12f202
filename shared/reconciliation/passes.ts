/**
 * What the passes of a reconciliation run (reconcile.ts) share: how many changes each has in
 * flight at once, and the fields a log line about one record's topic names.
 */
import type { Subscription } from '../subscriptions/model';

// Repairs and deletions are rare after the first run; a few at once keep SNS's per-account rates
// (DeleteTopic, CreateTopic, Subscribe) far from throttling.
export const CHANGES_IN_FLIGHT = 4;
/**
 * State writes are single-item UpdateItems, no SNS call: more at once. The first run after the
 * state was first stored writes every record (about 25 s for 100,000 at 5 ms a write).
 */
export const STATE_WRITES_IN_FLIGHT = 16;

/** The record and its topic, as a log line about a change to the topic names them. */
export const topicItemOf = (record: Subscription) => ({ portalId: record.portalId, configId: record.configId, topicArn: record.topicArn });
