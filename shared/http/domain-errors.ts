/**
 * How the API answers the domain's errors and the contract's: each error's status and `code`.
 * Its message is the error's own (written for the caller). The one table of these answers; the
 * error envelope (middleware/error-envelope.ts) reads it.
 */
import { InvalidRequestError } from '../contract/invalid-request';
import {
  AlreadyConfirmedError,
  EndpointInServiceAccountError,
  EndpointNotConfirmedError,
  EndpointRefusedError,
  SubscriptionDeactivatedError,
  SubscriptionLimitReachedError,
  SubscriptionNotFoundError,
} from '../subscriptions/errors';

export interface Refusal {
  statusCode: number;
  code: string;
  message: string;
  /** Fields the envelope adds after `code`, such as the `errors` of an invalid request. */
  details: Record<string, unknown>;
}

interface Answer<E extends Error> {
  error: abstract new (...args: never[]) => E;
  statusCode: number;
  code: string;
  /** A method, so that an entry of any error type is an Answer<Error>. */
  details?(error: E): Record<string, unknown>;
}

const answer = <E extends Error>(entry: Answer<E>): Answer<E> => entry;

export const DOMAIN_ERROR_ANSWERS: readonly Answer<Error>[] = [
  answer({ error: InvalidRequestError, statusCode: 400, code: 'INVALID_REQUEST', details: (error) => ({ errors: error.problems }) }),
  answer({ error: SubscriptionNotFoundError, statusCode: 400, code: 'SUBSCRIPTION_NOT_FOUND' }),
  answer({ error: SubscriptionLimitReachedError, statusCode: 400, code: 'SUBSCRIPTION_LIMIT_REACHED' }),
  answer({ error: EndpointRefusedError, statusCode: 400, code: 'ENDPOINT_REFUSED' }),
  answer({ error: EndpointInServiceAccountError, statusCode: 400, code: 'ENDPOINT_IN_SERVICE_ACCOUNT' }),
  answer({ error: AlreadyConfirmedError, statusCode: 400, code: 'ALREADY_CONFIRMED' }),
  answer({ error: SubscriptionDeactivatedError, statusCode: 400, code: 'SUBSCRIPTION_DEACTIVATED' }),
  answer({ error: EndpointNotConfirmedError, statusCode: 400, code: 'ENDPOINT_NOT_CONFIRMED' }),
];

/** The answer to a domain or contract error; undefined for any other error. */
export function domainRefusalOf(error: unknown): Refusal | undefined {
  for (const { error: type, statusCode, code, details } of DOMAIN_ERROR_ANSWERS) {
    if (error instanceof type) return { statusCode, code, message: error.message, details: details?.(error) ?? {} };
  }
  return undefined;
}
