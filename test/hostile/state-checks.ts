/** The table and SNS before and after hostile requests (checks.ts): what changed, and what must not. */
import { HostileFailure, isPlainObject } from './answer-checks';
import type { Snapshot } from './snapshot';

/** What changed between two snapshots, for failure messages. */
export function describeChanges(before: Snapshot, after: Snapshot): string {
  const lines: string[] = [];
  for (const key of new Set([...Object.keys(before.items), ...Object.keys(after.items)])) {
    const was = before.items[key];
    const is = after.items[key];
    if (was === is) continue;
    lines.push(was === undefined ? `  + item ${key}: ${is}` : is === undefined ? `  - item ${key}` : `  ~ item ${key}: ${was} -> ${is}`);
  }
  const diff = (name: string, was: readonly string[], is: readonly string[]) => {
    for (const entry of is) if (!was.includes(entry)) lines.push(`  + ${name} ${entry}`);
    for (const entry of was) if (!is.includes(entry)) lines.push(`  - ${name} ${entry}`);
  };
  diff('topic', before.topics, after.topics);
  diff('SNS subscription', before.subscriptions, after.subscriptions);
  return lines.join('\n');
}

export function sameState(a: Snapshot, b: Snapshot): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function expectState(actual: Snapshot, expected: Snapshot, what: string): void {
  if (!sameState(actual, expected)) throw new HostileFailure(`${what}:\n${describeChanges(expected, actual)}`);
}

/** Every string stored is valid Unicode (DynamoDB and SNS carry UTF-8). */
export function expectWellFormedStrings(snapshot: Snapshot): void {
  const visit = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      if (!value.isWellFormed()) throw new HostileFailure(`${where} holds a string that is not valid Unicode: ${JSON.stringify(value.slice(0, 100))}`);
    } else if (Array.isArray(value)) value.forEach((entry, index) => visit(entry, `${where}[${index}]`));
    else if (isPlainObject(value)) for (const [key, entry] of Object.entries(value)) visit(entry, `${where}.${key}`);
  };
  for (const [key, item] of Object.entries(snapshot.items)) visit(JSON.parse(item), `item ${key}`);
  for (const subscription of snapshot.subscriptions) visit(JSON.parse(subscription), 'SNS subscription');
}

/** The own property names of the built-in prototypes (the handlers run in this process). */
export function prototypeShape(): string {
  const values = { polluted: ({} as Record<string, unknown>).polluted, isAdmin: ({} as Record<string, unknown>).isAdmin };
  return JSON.stringify([
    Object.getOwnPropertyNames(Object.prototype).sort(),
    Object.getOwnPropertyNames(Array.prototype).sort(),
    Object.getOwnPropertyNames(Function.prototype).sort(),
    values,
  ]);
}
export const PROTOTYPES_AT_START = prototypeShape();
