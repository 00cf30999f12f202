/**
 * AWS refusals of the service's own making. A refusal (4xx) other than throttling turns the
 * request itself down, so retrying cannot help; when what is refused is the service's own doing
 * (its attributes, its topic policy, its permissions, a quota) and not the caller's, it is
 * answered as the service's fault (500, the refusal logged as its cause) rather than as a
 * dependency that is unavailable (503, "retry shortly").
 */

/** The request was turned down (4xx), and not for throttling. */
export function isRefusal(error: unknown): boolean {
  const { name, $fault } = (error ?? {}) as { name?: string; $fault?: string };
  return $fault === 'client' && !/Throttl/.test(name ?? '');
}

/** SNS refused `action` for a reason of the service's own. */
export class SnsRefusedServiceError extends Error {
  override readonly name = 'SnsRefusedServiceError';
  constructor(action: string, cause: unknown) {
    super(`SNS refused ${action} for a reason of the service's own: ${(cause as Error)?.name}: ${(cause as Error)?.message}`, { cause });
  }
}

/** For a failed `action` whose every refusal is the service's: the refusal as SnsRefusedServiceError, anything else as it is. */
export function refusedByService(action: string): (error: unknown) => never {
  return (error) => {
    throw isRefusal(error) ? new SnsRefusedServiceError(action, error) : error;
  };
}
