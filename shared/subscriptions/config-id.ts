/**
 * What a subscription id looks like. Its own module, without the request rules
 * (shared/contract/request-rules.ts), so that delete (whose only input is this path parameter)
 * carries none of them.
 */

/** A UUID in any case, as JSON Schema writes it (the OpenAPI document shows it). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UUID = new RegExp(UUID_PATTERN);

/** The `{configId}` path parameter of delete, normalized (lower case); undefined when it is not a UUID. */
export function configIdFromPath(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}
