/**
 * What an error from an AWS SDK call says about the call: whether a dependency failed (rather
 * than the request being refused), and whether the call may have taken effect anyway.
 */
const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** An AWS SDK error or a network failure: a dependency is down, slow or refusing us. */
export function isDependencyFault(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as SdkErrorShape;
  return (
    candidate.$metadata !== undefined ||
    (typeof candidate.code === 'string' && NETWORK_ERROR_CODES.has(candidate.code)) ||
    candidate.name === 'TimeoutError'
  );
}

/**
 * DynamoDB refusals that say nothing about an earlier attempt of the same transaction: the SDK
 * resent it (same client token) while the first, whose answer was lost, was still running or
 * had already committed.
 */
const UNDECIDED_REFUSALS = new Set(['TransactionInProgressException', 'IdempotentParameterMismatchException']);

/**
 * Whether a failed write may still have been applied: its answer was lost (a timeout, a reset
 * connection) or the service failed on its side. A refusal (4xx), a cancelled transaction or a
 * connection that was never made means it was not.
 */
export function mayHaveBeenApplied(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as SdkErrorShape;
  if (typeof candidate.name === 'string' && UNDECIDED_REFUSALS.has(candidate.name)) return true;
  if (candidate.code === 'ECONNREFUSED' || candidate.name === 'TransactionCanceledException') return false;
  if (candidate.$fault === 'client') return false;
  const status = candidate.$metadata?.httpStatusCode;
  if (status !== undefined && status < 500) return false;
  return isDependencyFault(error);
}
