/**
 * Snapshots of what the service could change, read through the real AWS SDK clients: every item
 * of the table and every topic and SNS subscription of the emulator, in a canonical form.
 */
import { ListSubscriptionsCommand, ListTopicsCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type DynamoDBDocumentClient, NumberValue, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { RATE_LIMIT_KEY_PREFIX } from '../../shared/data/table';

/** State the service may change, in a canonical form: numbers exact, keys sorted. */
export interface Snapshot {
  /** `<portalId> <sk>` → the item as canonical JSON. */
  readonly items: Readonly<Record<string, string>>;
  /** Topic ARNs, sorted. */
  readonly topics: readonly string[];
  /** Each SNS subscription as canonical JSON, sorted. */
  readonly subscriptions: readonly string[];
}

export const itemKey = (portalId: string, sk: string) => `${portalId} ${sk}`;
export const subscriptionSk = (configId: string) => `subscription#${configId}`;

/** A number as the canonical form holds it. */
export const numberAttribute = (value: number | string) => ({ $N: String(value) });

/** Sorted keys; NumberValue → {$N}; sets and binaries spelled out. */
export function canonical(value: unknown): unknown {
  if (value instanceof NumberValue) return numberAttribute(value.value);
  if (value instanceof Set) return { $Set: [...value].map(canonical).map((entry) => JSON.stringify(entry)).sort() };
  if (value instanceof Uint8Array) return { $B: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export async function scanAll(db: DynamoDBDocumentClient, tableName: string): Promise<Record<string, string>> {
  const entries: [string, string][] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await db.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: startKey }));
    for (const item of result.Items ?? []) {
      // A portal's rate limit item: every request that passed its checks takes a token, whatever
      // it then answers (a refusal too); not state a request asks to change.
      if (String(item.sk).startsWith(RATE_LIMIT_KEY_PREFIX)) continue;
      entries.push([itemKey(String(item.portalId), String(item.sk)), JSON.stringify(canonical(item))]);
    }
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export async function listTopics(sns: SNSClient): Promise<string[]> {
  const arns: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await sns.send(new ListTopicsCommand({ NextToken: token }));
    arns.push(...(result.Topics ?? []).map((topic) => String(topic.TopicArn)));
    token = result.NextToken;
    if (!token) break;
  }
  return arns.sort();
}

export async function listSubscriptions(sns: SNSClient): Promise<string[]> {
  const subscriptions: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await sns.send(new ListSubscriptionsCommand({ NextToken: token }));
    subscriptions.push(...(result.Subscriptions ?? []).map((subscription) => JSON.stringify(canonical(subscription))));
    token = result.NextToken;
    if (!token) break;
  }
  return subscriptions.sort();
}
