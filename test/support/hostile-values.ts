/**
 * Values that break a naive logger (cycles, throwing getters and proxies, BigInt, huge strings,
 * deep nesting), each with what its field must show in the logger's JSON line.
 */

export function errorWithCauseLoop(): Error {
  const outer = new Error('outer failure');
  const inner = new Error('inner failure', { cause: outer });
  outer.cause = inner;
  return outer;
}

/** A Proxy whose every trap (get, ownKeys, getPrototypeOf, has, …) throws. */
export function proxyThatThrowsOnEveryTrap(): object {
  const traps = new Proxy({}, { get: () => () => { throw new Error('trap refused'); } });
  return new Proxy({}, traps as ProxyHandler<object>);
}

/** Each hostile value, made fresh, and what its field must show in the JSON line, under the logger's `limits`. */
export function hostileValues(limits: { stringChars: number }): Record<string, { make: () => unknown; shows: (value: any) => void }> {
  return {
    'a circular object': {
      make: () => {
        const node: Record<string, unknown> = { name: 'node' };
        node.self = node;
        node.list = [node, { parent: node }];
        return node;
      },
      shows: (value) => {
        expect(value).toEqual({ name: 'node', self: '[Circular]', list: ['[Circular]', { parent: '[Circular]' }] });
      },
    },
    'an error whose cause chain loops': {
      make: errorWithCauseLoop,
      shows: (value) => {
        expect(value).toMatchObject({ name: 'Error', message: 'outer failure', cause: { message: 'inner failure', cause: '[Circular]' } });
        expect(value.stack).toContain('outer failure');
      },
    },
    'a BigInt': {
      make: () => 10n ** 30n,
      shows: (value) => expect(value).toBe('1000000000000000000000000000000'),
    },
    'an object whose getter throws': {
      make: () => ({
        ok: 1,
        get boom(): never {
          throw new Error('getter refused');
        },
      }),
      shows: (value) => expect(value).toEqual({ ok: 1, boom: '[Thrown: Error: getter refused]' }),
    },
    'a huge string': {
      make: () => 'x'.repeat(5_000_000),
      shows: (value) => {
        expect(value).toMatch(/^x+…\[\d+ more chars\]$/);
        expect(value.length).toBeLessThanOrEqual(limits.stringChars + 30);
      },
    },
    'a Proxy that throws on every trap': {
      make: proxyThatThrowsOnEveryTrap,
      shows: (value) => expect(value).toBe('[Thrown: Error: trap refused]'),
    },
    'Map, Set, Symbol, function and undefined': {
      make: () => {
        const set = new Set<unknown>([1]);
        set.add(set);
        return { map: new Map<unknown, unknown>([['a', 1], [2, 10n]]), set, symbol: Symbol('s'), fn: function named() {}, none: undefined };
      },
      shows: (value) => expect(value).toEqual({ map: { a: 1, 2: '10' }, set: [1, '[Circular]'], symbol: 'Symbol(s)', fn: '[Function named]' }),
    },
    'nesting deeper than the bound': {
      make: () => {
        let deep: Record<string, unknown> = {};
        for (let level = 0; level < 10_000; level++) deep = { deep };
        return deep;
      },
      shows: (value) => expect(JSON.stringify(value)).toContain('[Depth limit]'),
    },
  };
}
