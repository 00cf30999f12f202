/**
 * Grants on the subscriptions table held to the portals' partitions (operation-permissions.ts's
 * PORTAL_PARTITIONS_ONLY): no function but create (its own idempotency partition) and the
 * dispatcher (the delivery records) may touch the items that are no portal's.
 */
import { DYNAMODB_WRITES, PORTAL_PARTITIONS_ONLY } from './operation-permissions';
import type { ServiceFunction } from './service-function';

/**
 * Grants `actions` on the portals' partitions of the table only; when `writtenAttributes` is
 * given, its writes may name only those attributes (its reads any).
 */
export function allowOnPortalPartitions(fn: ServiceFunction, tableArn: string, actions: readonly string[], writtenAttributes?: readonly string[]): void {
  if (!writtenAttributes) {
    fn.allow(actions, [tableArn], PORTAL_PARTITIONS_ONLY);
    return;
  }
  fn.allow(actions.filter((action) => !DYNAMODB_WRITES.includes(action)), [tableArn], PORTAL_PARTITIONS_ONLY);
  fn.allow(actions.filter((action) => DYNAMODB_WRITES.includes(action)), [tableArn], {
    ...PORTAL_PARTITIONS_ONLY,
    'ForAllValues:StringLike': { 'dynamodb:Attributes': [...writtenAttributes] },
  });
}
