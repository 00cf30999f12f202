/**
 * What a subscription id looks like. Its own module, without the body schemas of rules.ts, so
 * that delete (whose only input is this path parameter) does not carry the schema library.
 */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `{configId}` path parameter of delete, normalized (lower case); undefined when it is not a UUID. */
export function configIdFromPath(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}
