/**
 * What the OpenAPI document says of the recovery routes (openapi-operation-docs.ts holds the others,
 * and holds these to its OperationDoc where it takes them in: no import back, no circle).
 */
import { EXAMPLE_CONFIG_ID, listRecoveriesQuery, recoverMessagesRequest } from './schemas';

const EXAMPLE_RECOVERY_ID = '019ab3c4-5d6e-7f80-9a1b-2c3d4e5f6071';
const EXAMPLE_WINDOW = { since: '2026-11-24T09:00:00.000Z', until: '2026-11-24T18:00:00.000Z', status: 'failed' };

export const RECOVERY_OPERATION_DOCS = {
  recoverMessagesRoute: {
    summary: 'Send a window of messages again',
    description:
      'Starts a recovery: every event of the window (`sentAt` from `since` to `until`, as GET /messages filters) is sent again to ' +
      'this subscription only, once per recovery, oldest first, with its original body (its `eventId` unchanged), each logged as a ' +
      'new message. `status` `failed` (the default) sends the events with a message that had an attempt and was not delivered ' +
      '(`failed` or `dead-lettered`) and none delivered; `all` every event. The answer is 202 at once; the recovery runs in the ' +
      'background, at the subscription\'s `maxReceivesPerSecond` where it has one and never faster than the portal\'s recovery pace ' +
      '(RECOVERY_SENDS_PER_SECOND, 10 by default; one recovery of a portal runs at a time), and GET /recoveries shows how far it got. ' +
      'At least once: a recovery that fails midway goes on from its last batch, which may be sent twice. `until` absent, or later ' +
      'than now, is the time of the request. 400: `since` after `until` (`INVALID_REQUEST`), `since` earlier than MESSAGE_KEEP_DAYS ' +
      'ago (`WINDOW_NOT_KEPT`), a subscription not in the caller\'s portal, deactivated, or whose endpoint has not confirmed. With an ' +
      '`Idempotency-Key`, a repeat gets the first answer and starts nothing.',
    request: recoverMessagesRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, since: '2026-11-24T09:00:00Z' },
    success: 'RecoverMessagesResponse',
    successStatus: 202 as const,
    successExample: {
      success: true,
      message: 'Recovery started; GET /recoveries shows how far it got.',
      recoveryId: EXAMPLE_RECOVERY_ID,
      configId: EXAMPLE_CONFIG_ID,
      ...EXAMPLE_WINDOW,
      state: 'running',
    },
    answersBadRequest: true,
    answersConflict: true,
    idempotencyKey: true,
  },
  listRecoveriesRoute: {
    summary: "List a subscription's recoveries",
    description:
      'The subscription\'s recoveries (POST /recover), newest first, a page at a time (`limit`, default 20, at most 100; `cursor`: ' +
      'the previous page\'s `cursor`), each with its window, its state (`running`, `done`, `failed` with `error`) and its counts: ' +
      '`matched` events chosen, `sent`, and `failed` (refused by SNS, or no longer kept). Kept MESSAGE_KEEP_DAYS.',
    query: listRecoveriesQuery,
    success: 'ListRecoveriesResponse',
    successExample: {
      success: true,
      message: '1 recovery on this page.',
      recoveries: [
        {
          recoveryId: EXAMPLE_RECOVERY_ID,
          configId: EXAMPLE_CONFIG_ID,
          ...EXAMPLE_WINDOW,
          state: 'done',
          createdAt: '2026-11-24T18:00:00.000Z',
          updatedAt: '2026-11-24T18:02:10.512Z',
          matched: 1200,
          sent: 1200,
          failed: 0,
        },
      ],
    },
    answersBadRequest: true,
  },
};
