/**
 * An operation refused for a reason the caller can fix: the API answers it 400
 * (shared/http/domain-errors.ts). `code` names the reason for programs; the message, written for
 * the caller, says what to fix. Each error names its own code, rather than one table naming every
 * error class, so that a function's bundle carries only the errors it can raise.
 */
export abstract class RefusalError extends Error {
  abstract readonly code: string;
}

/**
 * A request refused for now, not for what it asks: the same request succeeds from `retryAt` on
 * (a rate limit, a confirmation asked again too soon). The API answers it 429 with a Retry-After
 * header; its message says when, as a time a person can read.
 */
export abstract class TooSoonError extends RefusalError {
  abstract readonly retryAt: Date;
}

/** Seconds from now until `retryAt`, rounded up, at least 1: what Retry-After says. */
export function secondsUntil(retryAt: Date, now = Date.now()): number {
  return Math.max(1, Math.ceil((retryAt.getTime() - now) / 1000));
}
