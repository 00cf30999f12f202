/**
 * Portal events as they reach the dispatcher: EventBridge events that a rule put on the
 * dispatcher's SQS queue, one per message body.
 *
 *   { "id", "time", "source": "portal.events", "detail-type": <event kind>,
 *     "detail": { "portalId": "...", ...the event's own fields } }
 */
import { PORTAL_ID_PATTERN } from '../subscriptions/portal-id';
import { isServiceEventKind } from './service-event-kinds';

export const PORTAL_EVENT_SOURCE = 'portal.events';
/** The bus portal events arrive on, unless the deployment names another (CDK context eventBusName). */
export const DEFAULT_EVENT_BUS_NAME = 'webhooks-portal-events';

export interface PortalEvent {
  kind: string;
  portalId: string;
  /** EventBridge's event id. */
  eventId: string;
  /** EventBridge's event time, as ISO 8601. */
  occurredAt: string;
  /** The detail without portalId. */
  data: Record<string, unknown>;
}

/** Either the event, or why it can never be delivered (retrying it would not help). */
export type ParsedPortalEvent = { event: PortalEvent } | { unusable: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads one SQS message body; `eventKinds` are the kinds subscriptions may choose. */
export function parsePortalEvent(body: string, eventKinds: readonly string[]): ParsedPortalEvent {
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    return { unusable: 'the message body is not JSON' };
  }
  if (!isPlainObject(envelope)) return { unusable: 'the message body is not an EventBridge event' };
  const { id, time, source, 'detail-type': kind, detail } = envelope;
  if (source !== PORTAL_EVENT_SOURCE) return { unusable: `source is not ${PORTAL_EVENT_SOURCE}` };
  if (typeof id !== 'string' || id === '') return { unusable: 'the event has no id' };
  const occurredAt = typeof time === 'string' ? new Date(time) : undefined;
  if (!occurredAt || Number.isNaN(occurredAt.getTime())) return { unusable: 'the event has no valid time' };
  if (typeof kind !== 'string' || !eventKinds.includes(kind)) return { unusable: 'detail-type is not a known event kind' };
  // Only the retry sweep sends the service's own notices, straight to SNS: one on the bus is forged.
  if (isServiceEventKind(kind)) return { unusable: "detail-type is one of the service's own event kinds, which never come from the bus" };
  if (!isPlainObject(detail)) return { unusable: 'detail is not a JSON object' };
  const { portalId, ...data } = detail;
  if (typeof portalId !== 'string' || !PORTAL_ID_PATTERN.test(portalId)) {
    return { unusable: 'detail.portalId is missing or not a valid portal id' };
  }
  return { event: { kind, portalId, eventId: id, occurredAt: occurredAt.toISOString(), data } };
}
