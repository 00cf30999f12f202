/**
 * Calls the operations' handlers the way API Gateway does, and answers what an HTTP client
 * would see. Importing this module loads the handlers, so the environment must be set first
 * (global setup does; suites that change it import this module dynamically after changing it).
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as activateSubscription } from '../../functions/activateSubscription';
import { handler as confirmSubscription } from '../../functions/confirmSubscription';
import { handler as createSubscription } from '../../functions/createSubscription';
import { handler as deleteSubscription } from '../../functions/deleteSubscription';
import { handler as listAttempts } from '../../functions/listAttempts';
import { handler as listMessages } from '../../functions/listMessages';
import { handler as recoverMessages } from '../../functions/recoverMessages';
import { handler as listRecoveries } from '../../functions/listRecoveries';
import { handler as resendMessage } from '../../functions/resendMessage';
import { handler as testFilter } from '../../functions/testFilter';
import { handler as listDeadLetters } from '../../functions/listDeadLetters';
import { handler as listSubscriptions } from '../../functions/listSubscriptions';
import { handler as renameSubscription } from '../../functions/renameSubscription';
import { handler as replayDeadLetters } from '../../functions/replayDeadLetters';
import { handler as testSubscription } from '../../functions/testSubscription';
import { handler as updateSubscription } from '../../functions/updateSubscription';
import type { OperationId } from '../../shared/operations';
import { type HttpEventOptions, httpEvent } from './http-events';
import { lambdaContext } from './lambda-context';
import { expectDocumentedAnswer } from './openapi-responses';

const handlers = {
  createSubscriptionRoute: createSubscription,
  updateSubscriptionRoute: updateSubscription,
  activateSubscriptionRoute: activateSubscription,
  listSubscriptionsRoute: listSubscriptions,
  renameSubscriptionRoute: renameSubscription,
  deleteSubscriptionRoute: deleteSubscription,
  testSubscriptionRoute: testSubscription,
  confirmSubscriptionRoute: confirmSubscription,
  listDeadLettersRoute: listDeadLetters,
  replayDeadLettersRoute: replayDeadLetters,
  listAttemptsRoute: listAttempts,
  listMessagesRoute: listMessages,
  resendMessageRoute: resendMessage,
  recoverMessagesRoute: recoverMessages,
  listRecoveriesRoute: listRecoveries,
  testFilterRoute: testFilter,
} satisfies Record<OperationId, unknown>;

export interface ApiAnswer {
  statusCode: number;
  headers: Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary fields
  body: any;
  /** The body as sent, byte for byte (field order included, which `body` comparisons ignore). */
  text: string | undefined;
}

/** `timeoutMs`: the function's time left at the start (Lambda's timeout), 10 s as deployed by default. */
export async function call(operationId: OperationId, options: HttpEventOptions & { timeoutMs?: number } = {}): Promise<ApiAnswer> {
  const context = lambdaContext(operationId, options.timeoutMs);
  const result = (await handlers[operationId](httpEvent(operationId, options), context)) as APIGatewayProxyStructuredResultV2;
  const answer = {
    statusCode: result.statusCode ?? 200,
    headers: (result.headers ?? {}) as Record<string, unknown>,
    body: result.body === undefined ? undefined : JSON.parse(result.body),
    text: result.body,
  };
  // Every answer a suite sees must be one the OpenAPI document describes.
  await expectDocumentedAnswer(operationId, options.prefix ?? 0, answer.statusCode, answer.body, answer.headers);
  return answer;
}

/**
 * The answer but for its RateLimit-* headers, which are each request's own (every request takes its
 * token): what a repeated request answers again, byte for byte.
 */
export function withoutRateLimit(answer: ApiAnswer): ApiAnswer {
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !name.startsWith('ratelimit-')));
  return { ...answer, headers };
}

/** A valid create body; override any field. */
export function newSubscription(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Media updates',
    endpoint: 'https://127.0.0.1:9/hooks/assets',
    protocol: 'https',
    events: ['asset_bank.media.create', 'asset_bank.media.updated'],
    ...overrides,
  };
}

/** A portal id no other test uses. */
export function freshPortal(label = 'portal'): string {
  return `${label}-${Math.random().toString(36).slice(2, 10)}`;
}
