/**
 * What a subscription id looks like. Its own module, without the request bodies' validators
 * (shared/contract/request-bodies.ts), so that delete (whose only input is this path parameter)
 * carries none of them.
 */

/** A UUID in any case, as JSON Schema writes it (the request schemas and the OpenAPI document use it). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UUID = new RegExp(UUID_PATTERN);

/** The `{configId}` path parameter of delete, normalized (lower case); undefined when it is not a UUID. */
export function configIdFromPath(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}
