/**
 * How the API answers the domain's refusals and the contract's: every RefusalError is the
 * caller's to fix, so a 400 with the error's own `code` and message (written for the caller); an
 * invalid request also lists its problems as `errors`. The error envelope
 * (middleware/error-envelope.ts) reads it. No table of error classes: a function's bundle then
 * carries only the errors its own code can raise.
 */
import { InvalidRequestError } from '../contract/invalid-request';
import { RefusalError } from '../refusal-error';

export interface Refusal {
  statusCode: number;
  code: string;
  message: string;
  /** Fields the envelope adds after `code`, such as the `errors` of an invalid request. */
  details: Record<string, unknown>;
}

/** The answer to a domain or contract refusal; undefined for any other error. */
export function domainRefusalOf(error: unknown): Refusal | undefined {
  if (!(error instanceof RefusalError)) return undefined;
  const details = error instanceof InvalidRequestError ? { errors: error.problems } : {};
  return { statusCode: 400, code: error.code, message: error.message, details };
}
