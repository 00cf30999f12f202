/**
 * Layout of the subscriptions table, shared by the repository, the CDK stack and the local
 * stack. One partition per portal holds its subscriptions and one counter item; a portal can
 * only ever address its own partition because the partition key comes from its token.
 */
export const TABLE_KEYS = { partitionKey: 'portalId', sortKey: 'sk' } as const;

/** Sort key of a subscription item. */
export const subscriptionKeyOf = (configId: string) => `subscription#${configId}`;
export const SUBSCRIPTION_KEY_PREFIX = 'subscription#';

/** Sort key of the item counting a portal's subscriptions, for the atomic per-portal limit. */
export const PORTAL_COUNTER_KEY = 'portal';
