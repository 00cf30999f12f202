/**
 * An operation refused for a reason the caller can fix: the API answers it 400
 * (shared/http/domain-errors.ts). `code` names the reason for programs; the message, written for
 * the caller, says what to fix. Each error names its own code, rather than one table naming every
 * error class, so that a function's bundle carries only the errors it can raise.
 */
export abstract class RefusalError extends Error {
  abstract readonly code: string;
}
