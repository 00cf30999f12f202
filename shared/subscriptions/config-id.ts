/**
 * What a subscription id looks like, and a new one. Its own module, without the request bodies'
 * validators (shared/contract/request-bodies.ts), so that delete (whose only input is this path
 * parameter) carries none of them.
 */
import { randomFillSync } from 'node:crypto';

/** A UUID in any case, as JSON Schema writes it (the request schemas and the OpenAPI document use it). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UUID = /* @__PURE__ */ new RegExp(UUID_PATTERN);

/** The `{configId}` path parameter of delete, normalized (lower case); undefined when it is not a UUID. */
export function configIdFromPath(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}

/** The 12 bits after the version: a counter within one millisecond (RFC 9562, section 6.2, Method 1). */
const MAX_SEQUENCE = 0xfff;
let lastMs = -1;
let sequence = 0;

/**
 * A new subscription id: a UUID version 7 (RFC 9562, section 5.7), lower case: 48 bits of Unix
 * time in milliseconds, the version, a 12-bit counter, the variant and 62 random bits. Ids sort
 * by creation time (a portal's records are listed in that order) and the reconciler reads a
 * topic's age from its name (topic-names.ts). Within one millisecond the counter keeps this
 * process's ids in order: it starts at a random value below 2048 and counts up, and a full
 * counter moves on to the next millisecond. Our own rather than the uuid package's v7: a
 * kilobyte less in create's bundle (docs/decisions/bundles-carry-only-their-operation.md).
 */
export function newConfigId(now: number = Date.now()): string {
  const bytes = randomFillSync(Buffer.alloc(16));
  if (now > lastMs) {
    lastMs = now;
    sequence = bytes.readUInt16BE(6) & 0x7ff;
  } else if (++sequence > MAX_SEQUENCE) {
    lastMs++;
    sequence = 0;
  }
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes.writeUInt16BE(0x7000 | sequence, 6);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
