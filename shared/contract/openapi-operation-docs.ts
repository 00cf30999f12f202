/**
 * What the OpenAPI document (openapi-document.ts) says of each operation beyond the operations
 * table: its summary and description, the schemas of its request and answer, an example of each,
 * and the statuses it may answer besides those every operation has.
 */
import type { OperationId } from '../operations';
import {
  activateSubscriptionRequest,
  confirmSubscriptionRequest,
  createSubscriptionRequest,
  EXAMPLE_CONFIG_ID,
  listAttemptsQuery,
  listMessagesQuery,
  resendMessageRequest,
  listDeadLettersQuery,
  renameSubscriptionRequest,
  replayDeadLettersRequest,
  testFilterRequest,
  testSubscriptionRequest,
  updateSubscriptionRequest,
} from './schemas';

import { RECOVERY_OPERATION_DOCS } from './openapi-recovery-docs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is plain JSON
type Json = any;

const EXAMPLE_TOPIC_ARN = `arn:aws:sns:eu-west-1:123456789012:webhooks-${EXAMPLE_CONFIG_ID}`;
const EXAMPLE_RECORD = {
  configId: EXAMPLE_CONFIG_ID,
  endpoint: 'https://hooks.example.com/assets',
  events: ['asset_bank.media.create', 'asset_bank.media.updated'],
  name: 'Media updates',
  portalId: 'portal-a',
  protocol: 'https',
  subscriptionArn: `${EXAMPLE_TOPIC_ARN}:4f6b1a1e-2d3c-4b5a-8f9e-0a1b2c3d4e5f`,
  topicArn: EXAMPLE_TOPIC_ARN,
  status: 1,
  confirmed: false,
  subscriptionState: 'pending',
};

/** What the document says of each operation beyond the operations table. */
export interface OperationDoc {
  readonly summary: string;
  readonly description: string;
  /** The schema of the body; none: any body is ignored. */
  readonly request?: { readonly $id: string };
  /** The schema of the query parameters (all strings), documented one parameter each. */
  readonly query?: { readonly properties: Record<string, Json>; readonly required: readonly string[] };
  readonly requestExample?: Json;
  /** Component name of the 200 (or successStatus) body, and an example of it. */
  readonly success: string;
  /** 202 for an operation that answers once its work is started. */
  readonly successStatus?: 202;
  readonly successExample: Json;
  /** Statuses beyond those every operation has. */
  readonly answersBadRequest: boolean;
  readonly answersConflict?: boolean;
  /** Why the operation itself may answer 429 besides the portal's rate limit, as a sentence. */
  readonly answersTooSoon?: string;
  readonly idempotencyKey?: boolean;
}

// Keyed by operation id: an operation added to the table and not described here fails type-checking.
export const OPERATION_DOCS: Record<OperationId, OperationDoc> = {
  ...RECOVERY_OPERATION_DOCS,
  createSubscriptionRoute: {
    summary: 'Create a subscription',
    description:
      'Creates a subscription of the caller\'s portal with its own SNS topic and the endpoint subscribed to it. ' +
      'The endpoint must suit the protocol: an absolute https:// or http:// URL of at most 2048 characters, an e-mail ' +
      'address (email, email-json), an SQS queue ARN (sqs) or a Lambda function ARN (lambda). `protocol` is ' +
      'case-insensitive. At most MAX_SUBSCRIPTIONS_PER_PORTAL subscriptions per portal. A queue or function of the ' +
      'service\'s own AWS account is refused (400 `ENDPOINT_IN_SERVICE_ACCOUNT`) unless the deployment allows it; ' +
      'one of another account stays `pending` until its owner confirms the subscription. An http/https endpoint whose ' +
      'host cannot be public (a loopback, private, link-local or reserved IP literal, or `localhost`) is refused (400 ' +
      '`ENDPOINT_NOT_PUBLIC`), and so is a user name or password in a plain http:// URL (400 ' +
      '`ENDPOINT_CREDENTIALS_OVER_HTTP`). A basic-auth password (`https://user:password@host/...`) is passed to SNS and ' +
      'never shown again: every answer shows the endpoint as `https://user:****@host/...`. `maxReceivesPerSecond` ' +
      '(http/https only; otherwise 400 `THROTTLE_NOT_SUPPORTED`) has SNS send at most that many deliveries a second to ' +
      'the endpoint, holding the rest back.',
    request: createSubscriptionRequest,
    requestExample: {
      name: 'Media updates',
      endpoint: 'https://hooks.example.com/assets',
      protocol: 'https',
      events: ['asset_bank.media.create', 'asset_bank.media.updated'],
    },
    success: 'CreateSubscriptionResponse',
    successExample: { success: true, message: 'Subscription created.', record: EXAMPLE_RECORD },
    answersBadRequest: true,
    answersConflict: true,
    idempotencyKey: true,
  },
  updateSubscriptionRoute: {
    summary: 'Replace the event list or set the throttle of a subscription',
    description:
      'Replaces the event kinds (duplicates are dropped, order kept), sets the throttle `maxReceivesPerSecond` in the ' +
      'SNS subscription\'s delivery policy (a number; `null` removes it; http/https only, otherwise 400 ' +
      '`THROTTLE_NOT_SUPPORTED`), or both; at least one of the two. `configId` is accepted as an alias of `config_id`.',
    request: updateSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, events: ['asset_bank.media.deleted'] },
    success: 'UpdateSubscriptionResponse',
    successExample: {
      success: true,
      message: 'Subscription events updated.',
      record: { configId: EXAMPLE_CONFIG_ID, events: ['asset_bank.media.deleted'], portalId: 'portal-a' },
    },
    answersBadRequest: true,
  },
  activateSubscriptionRoute: {
    summary: 'Activate or deactivate a subscription',
    description: '`status` 1 activates, 0 deactivates: a deactivated subscription receives only test events.',
    request: activateSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, status: 0 },
    success: 'SuccessResponse',
    successExample: { success: true, message: 'Subscription deactivated.' },
    answersBadRequest: true,
  },
  listSubscriptionsRoute: {
    summary: 'List the portal\'s subscriptions',
    description:
      'Every subscription of the caller\'s portal, oldest first, with SNS\'s side of it (`subscriptionState`: confirmed, ' +
      'pending or unsubscribed) as the service last learned it: SNS is asked only about subscriptions not known to be ' +
      'confirmed, and a confirmation that lapses shows within one run of the reconciler. Each entry also tells its dead ' +
      'letters: how many are kept (`deadLetters`), how many of those are being retried (`deadLettersRetrying`: a scheduled retry ' +
      'is out, SNS has not said yet how it went), when the latest failed (`lastDeadLetterAt`), how many gave way to the ' +
      'cap of 1,000 (`deadLettersDropped`); and its health, from SNS\'s delivery status logs: the latest delivery and failure ' +
      '(`lastDeliveredAt`, `lastFailedAt`) and the counts of the last 24 hours (`deliveredLast24h`, `failedLast24h`). The answer also says how many subscriptions the portal may have ' +
      '(`maxSubscriptions`). Any body is ignored.',
    success: 'ListSubscriptionsResponse',
    successExample: {
      success: true,
      message: '1 subscription found.',
      configs: [
        {
          configId: EXAMPLE_CONFIG_ID,
          name: EXAMPLE_RECORD.name,
          endpoint: EXAMPLE_RECORD.endpoint,
          protocol: 'https',
          events: EXAMPLE_RECORD.events,
          status: 1,
          confirmed: true,
          subscriptionState: 'confirmed',
          deadLetters: 2,
          deadLettersRetrying: 0,
          lastDeadLetterAt: '2026-11-24T08:41:12.345Z',
          deadLettersDropped: 0,
          lastDeliveredAt: '2026-11-24T09:02:33.120Z',
          lastFailedAt: '2026-11-24T08:41:12.345Z',
          deliveredLast24h: 118,
          failedLast24h: 2,
          disabledReason: null,
          disabledAt: null,
        },
      ],
      maxSubscriptions: 10,
    },
    answersBadRequest: false,
  },
  renameSubscriptionRoute: {
    summary: 'Rename a subscription',
    description: 'The name is trimmed: 1-255 characters, no control characters.',
    request: renameSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, name: 'Media hooks' },
    success: 'SuccessResponse',
    successExample: { success: true, message: 'Subscription renamed.' },
    answersBadRequest: true,
  },
  deleteSubscriptionRoute: {
    summary: 'Delete a subscription',
    description: 'Deletes the subscription, its SNS topic and its SNS subscription. Any body is ignored.',
    success: 'SuccessResponse',
    successExample: { success: true, message: 'Subscription deleted.' },
    answersBadRequest: true,
  },
  testSubscriptionRoute: {
    summary: 'Send a test event',
    description:
      'Publishes one `webhooks.test` message to the subscription, whatever its event list and status. While its endpoint has not ' +
      'confirmed (`subscriptionState` pending or unsubscribed) nothing would arrive: 400 `ENDPOINT_NOT_CONFIRMED`.',
    request: testSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID },
    success: 'TestSubscriptionResponse',
    successExample: { success: true, message: 'Test event sent.', messageId: '5a3d2c1b-0f9e-4d8c-b7a6-958473625140' },
    answersBadRequest: true,
  },
  listDeadLettersRoute: {
    summary: 'List a subscription\'s dead letters',
    description:
      'The messages SNS could not deliver to the endpoint after its retries, newest first, a page at a time (`limit`, default 50, ' +
      'at most 100; `cursor`: the previous page\'s `nextCursor`). Each is kept 14 days (to the end of the UTC day it failed on ' +
      'plus 14 days), and at most 1,000 per subscription: the oldest give way, counted in `deadLettersDropped`. While a scheduled ' +
      'retry of one is out, it stays listed with `state` `retrying` and `retriedAt`: it leaves once the retry is delivered, and the ' +
      'retry\'s own dead letter takes its place if it fails again.',
    query: listDeadLettersQuery,
    success: 'ListDeadLettersResponse',
    successExample: {
      success: true,
      message: '1 dead letter on this page.',
      deadLetters: [
        {
          eventId: '6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c',
          event: 'asset_bank.media.create',
          occurredAt: '2026-11-24T08:15:00Z',
          failedAt: '2026-11-24T08:41:12.345Z',
          messageId: '5a3d2c1b-0f9e-4d8c-b7a6-958473625140',
          retries: 1,
          nextRetryAt: '2026-11-24T10:41:12.345Z',
          state: 'dead-lettered',
          retriedAt: null,
        },
      ],
      nextCursor: null,
      deadLettersDropped: 0,
    },
    answersBadRequest: true,
  },
  replayDeadLettersRoute: {
    summary: 'Send dead letters again',
    description:
      'Publishes the subscription\'s dead letters to its topic again with their original body (same `eventId`), oldest first, ' +
      'at most 100 per request, and removes each once SNS accepted it: all kept ones, or those of the given `eventIds`. ' +
      '`remaining` says how many are still kept. At least once: receivers deduplicate on (`configId`, `eventId`). One that fails ' +
      'again comes back as a new dead letter. Each is claimed before it is published, so concurrent replays share the letters and each ' +
      'is sent once; one claimed by a replay that crashed can be replayed again a minute later. ' +
      'eventIds naming no kept dead letter: 200 with `replayed` 0. A deactivated ' +
      'subscription (400 `SUBSCRIPTION_DEACTIVATED`) or one whose endpoint has not confirmed (400 `ENDPOINT_NOT_CONFIRMED`) is refused.',
    request: replayDeadLettersRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, eventIds: ['6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c'] },
    success: 'ReplayDeadLettersResponse',
    successExample: { success: true, message: '1 dead letter sent again.', replayed: 1, remaining: 0 },
    answersBadRequest: true,
    answersConflict: true,
    idempotencyKey: true,
  },
  listAttemptsRoute: {
    summary: 'List a subscription\'s delivery attempts',
    description:
      'Every delivery of a message to the endpoint as SNS logged it (its delivery status logs), successes included, newest ' +
      'first, a page at a time (`limit`, default 50, at most 100; `cursor`: the previous page\'s `nextCursor`; `status`: ' +
      '`delivered` or `failed` only). `attempts` is SNS\'s count of tries for the message, `dwellTimeMs` the time from publishing ' +
      'to the end of the delivery; `messageId` is the `x-amz-sns-message-id` header the endpoint received, `eventId` the body\'s. Only attempts of messages the service sent are kept. Successes are ' +
      'sampled as the deployment sets (all by default); failures are all kept. Kept 7 days (a deployment setting), at most ' +
      '1,000 per subscription (the oldest give way). E-mail subscriptions have none: 400 `ATTEMPTS_NOT_RECORDED`.',
    query: listAttemptsQuery,
    success: 'ListAttemptsResponse',
    successExample: {
      success: true,
      message: '1 delivery attempt on this page.',
      attempts: [
        {
          at: '2026-11-24T09:02:33.120Z',
          status: 'delivered',
          statusCode: 200,
          dwellTimeMs: 84,
          attempts: 1,
          messageId: '5a3d2c1b-0f9e-4d8c-b7a6-958473625140',
          eventId: '6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c',
        },
      ],
      nextCursor: null,
    },
    answersBadRequest: true,
  },
  listMessagesRoute: {
    summary: 'List the messages sent to a subscription',
    description:
      'Every message the service published to the subscription\'s topic (portal events, test events, the service\'s notices, ' +
      'scheduled retries and replays), newest first, with the body the endpoint receives and its delivery state, a page at a ' +
      'time (`limit`, default 50, at most 100; `cursor`: the previous page\'s `nextCursor`). `status` keeps one state ' +
      '(`failed` also matches `dead-lettered`), `event` one kind, `since` and `until` a window of `sentAt`. Kept 30 days (a ' +
      'deployment setting, MESSAGE_KEEP_DAYS). `since` after `until` is 400 `INVALID_REQUEST`.',
    query: listMessagesQuery,
    success: 'ListMessagesResponse',
    successExample: {
      success: true,
      message: '1 message on this page.',
      messages: [
        {
          eventId: '6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c',
          event: 'asset_bank.media.create',
          occurredAt: '2026-11-24T09:02:33Z',
          sentAt: '2026-11-24T09:02:33.180Z',
          status: 'delivered',
          attempts: 1,
          lastAttemptAt: '2026-11-24T09:02:33.260Z',
          statusCode: 200,
          messageId: '5a3d2c1b-0f9e-4d8c-b7a6-958473625140',
          body: {
            event: 'asset_bank.media.create',
            portalId: 'portal-a',
            configId: EXAMPLE_CONFIG_ID,
            occurredAt: '2026-11-24T09:02:33Z',
            eventId: '6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c',
            data: { mediaId: 'm-1' },
          },
        },
      ],
      nextCursor: null,
    },
    answersBadRequest: true,
  },
  resendMessageRoute: {
    summary: 'Send one logged message again',
    description:
      'Publishes the message of `event_id` again to this subscription only, with the body the endpoint got the first time ' +
      '(its `eventId` unchanged, so a receiver that keeps the ids it handled can tell), and logs it: GET /messages lists it ' +
      'as a new message under its `sentAt`. When the event was sent more than once, the latest body is sent. A subscription ' +
      'not in the caller\'s portal, or an event id with no logged message (none kept: older than MESSAGE_KEEP_DAYS), is 400; ' +
      'so is a deactivated subscription or an endpoint that has not confirmed, since nothing would arrive.',
    request: resendMessageRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, event_id: '6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c' },
    success: 'ResendMessageResponse',
    successExample: {
      success: true,
      message: 'Message sent again.',
      eventId: '6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c',
      messageId: '7c4e2d1a-1b2c-4d3e-8f4a-5b6c7d8e9f00',
      sentAt: '2026-11-24T10:15:02.481Z',
    },
    answersBadRequest: true,
  },
  testFilterRoute: {
    summary: 'Try a filter on an example event\'s data',
    description:
      'Answers whether `data` (an event\'s `data`, as the endpoint receives it) matches `filter` (an SNS filter policy, as a ' +
      'subscription\'s `filter` takes it), as the dispatcher would decide; for a miss, `decidingKey` names the key that decided it. ' +
      'Nothing is stored or sent. A filter SNS would refuse is answered 400 `INVALID_REQUEST` naming its part and why, as create and update do.',
    request: testFilterRequest,
    requestExample: { filter: { brand: ['acme'], size: [{ numeric: ['>', 1000] }] }, data: { brand: 'acme', size: 512 } },
    success: 'TestFilterResponse',
    successExample: { success: true, message: 'data does not match the filter: size decided it.', matches: false, decidingKey: 'size' },
    answersBadRequest: true,
  },
  confirmSubscriptionRoute: {
    summary: 'Ask the endpoint to confirm again',
    description:
      'Subscribes the endpoint of a `pending` or `unsubscribed` subscription again: SNS sends it a new confirmation ' +
      'request (an e-mail, or a SubscriptionConfirmation POST), and it receives events once it confirms. A ' +
      '`confirmed` subscription is answered 400 `ALREADY_CONFIRMED`. An endpoint whose password SNS no longer holds ' +
      '(its SNS subscription is gone) is answered 400 `ENDPOINT_CREDENTIALS_GONE`: create the subscription again. ' +
      '`configId` is accepted as an alias of `config_id`.',
    request: confirmSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID },
    answersTooSoon:
      'Confirm also answers 429 `CONFIRMATION_PENDING` while a confirmation request sent less than 5 minutes ago is still pending ' +
      '(create\'s own request included), and `CONFIRMATION_REQUESTS_PER_DAY` once the endpoint was sent CONFIRMATION_REQUESTS_PER_DAY ' +
      '(5 by default) this UTC day. ',
    success: 'ConfirmSubscriptionResponse',
    successExample: {
      success: true,
      message: 'Confirmation requested: SNS sent the endpoint a new confirmation request.',
      subscriptionState: 'pending',
    },
    answersBadRequest: true,
  },
};
