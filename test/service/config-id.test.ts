/**
 * New subscription ids (shared/subscriptions/config-id.ts): UUIDs version 7 that the API's own
 * pattern accepts, carry their creation time, and sort in order of creation within this process,
 * within one millisecond too.
 */
import { UUID, newConfigId } from '../../shared/subscriptions/config-id';
import { uuidV7TimeMs } from '../../shared/reconciliation/topic-names';

describe('newConfigId', () => {
  it('is a lower-case UUID version 7 of the RFC 9562 variant, carrying the time it was made', () => {
    // Act
    const before = Date.now();
    const id = newConfigId();
    const after = Date.now();

    // Assess
    expect(id).toMatch(UUID);
    expect(id).toBe(id.toLowerCase());
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
    expect(uuidV7TimeMs(id)).toBeGreaterThanOrEqual(before);
    expect(uuidV7TimeMs(id)).toBeLessThanOrEqual(after);
  });

  it('makes ids that sort in the order they were made, 5,000 within one millisecond among them', () => {
    // Act: more than the 12-bit counter holds in one millisecond, so it moves on to the next.
    const now = Date.now() + 60_000;
    const sameMillisecond = Array.from({ length: 5_000 }, () => newConfigId(now));
    const later = newConfigId(now + 1);
    const clockBack = newConfigId(now - 1_000);

    // Assess
    const ids = [...sameMillisecond, later, clockBack];
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(uuidV7TimeMs(sameMillisecond[0]!)).toBe(now);
    expect(uuidV7TimeMs(sameMillisecond.at(-1)!)).toBeLessThanOrEqual(now + 2);
  });
});
