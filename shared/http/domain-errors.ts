/**
 * How the API answers the domain's refusals and the contract's: a TooSoonError is a 429 with
 * Retry-After; every other RefusalError is the caller's to fix, so a 400 with the error's own `code` and message (written for the caller); an
 * invalid request also lists its problems as `errors`. The error envelope
 * (middleware/error-envelope.ts) reads it. No table of error classes: a function's bundle then
 * carries only the errors its own code can raise.
 */
import { InvalidRequestError } from '../contract/invalid-request';
import { RefusalError, secondsUntil, TooSoonError } from '../refusal-error';

export interface Refusal {
  statusCode: number;
  code: string;
  message: string;
  /** Fields the envelope adds after `code`, such as the `errors` of an invalid request. */
  details: Record<string, unknown>;
  /** Headers of the answer, such as the Retry-After of a 429. */
  headers?: Record<string, string>;
}

/** The answer to a domain or contract refusal; undefined for any other error. */
export function domainRefusalOf(error: unknown): Refusal | undefined {
  if (!(error instanceof RefusalError)) return undefined;
  // Asked too soon: the same request succeeds later, so 429 and when (RFC 6585, RFC 9110 Retry-After).
  if (error instanceof TooSoonError) {
    return { statusCode: 429, code: error.code, message: error.message, details: {}, headers: { 'retry-after': String(secondsUntil(error.retryAt)) } };
  }
  const details = error instanceof InvalidRequestError ? { errors: error.problems } : {};
  return { statusCode: 400, code: error.code, message: error.message, details };
}
