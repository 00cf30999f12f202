/**
 * Compares what the emulators answered with a value recorded from AWS.
 *
 * Recordings hold placeholders where AWS's answer differs by run: `<uuid:1>`, `<resource:2>`,
 * `<token:1>`… (LocalStack's snapshot notation, kept as recorded). A numbered placeholder binds
 * to what stands in its place the first time it is met; the same placeholder must then stand
 * for the same text everywhere in the case, and two different numbers of one kind for two
 * different texts (two tokens recorded as `<token:1>` and `<token:2>` must differ here too).
 * Unnumbered ones (`<signature>`, `<partition>`) match anything, and so do the few whole
 * strings LocalStack's transformers wrote in place of a varying value (`date`, `connection`…).
 *
 * Objects must have exactly the recorded keys; arrays the recorded length. A recorded object
 * or array compared with a string parses the string as JSON first, as the snapshots were taken
 * (JSON-valued attributes like Policy are stored parsed). The recordings' account
 * `111111111111` stands for any account.
 */

/** Whole strings LocalStack's transformers put where a value varies by run. */
const ANY_VALUE = new Set(['date', 'connection', 'content--length', 'sent-timestamp', 'sender-id']);
const PLACEHOLDER = /<([a-z][a-z0-9-]*)(?::(\d+))?>|111111111111/g;

export class Bindings {
  private readonly byPlaceholder = new Map<string, string>();
  private readonly byValue = new Map<string, string>();

  /** Binds `placeholder` to `value`; false when either is already bound to something else. */
  bind(placeholder: string, value: string): boolean {
    const bound = this.byPlaceholder.get(placeholder);
    if (bound !== undefined) return bound === value;
    const kind = placeholder.replace(/:\d+>$/, '');
    const holder = this.byValue.get(`${kind}\u0000${value}`);
    if (holder !== undefined && holder !== placeholder) return false;
    this.byPlaceholder.set(placeholder, value);
    this.byValue.set(`${kind}\u0000${value}`, placeholder);
    return true;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text a placeholder of this kind may stand for: an ARN's parts hold no colon. */
function patternOf(kind: string): string {
  if (['partition', 'region', 'resource', 'account'].includes(kind)) return '([^:/]+?)';
  return '(.+?)';
}

function matchString(recorded: string, actual: string, bindings: Bindings, path: string, problems: string[]): void {
  if (ANY_VALUE.has(recorded)) return;
  const parts: { placeholder: string; numbered: boolean }[] = [];
  let pattern = '^';
  let last = 0;
  for (const found of recorded.matchAll(PLACEHOLDER)) {
    pattern += escapeRegExp(recorded.slice(last, found.index));
    const kind = found[1] ?? 'account';
    pattern += patternOf(kind);
    parts.push({ placeholder: found[0] === '111111111111' ? '<account>' : found[0], numbered: found[2] !== undefined || kind === 'account' });
    last = found.index + found[0].length;
  }
  pattern += `${escapeRegExp(recorded.slice(last))}$`;
  const match = new RegExp(pattern, 's').exec(actual);
  if (!match) {
    problems.push(`${path}: recorded ${JSON.stringify(recorded)}, got ${JSON.stringify(actual)}`);
    return;
  }
  parts.forEach(({ placeholder, numbered }, index) => {
    if (numbered && !bindings.bind(placeholder, match[index + 1]!)) {
      problems.push(`${path}: ${placeholder} stands for ${JSON.stringify(match[index + 1])}, which does not agree with its other occurrences`);
    }
  });
}

/** Every difference between the recorded value and the actual one, by path; none when they agree. */
export function differences(recorded: unknown, actual: unknown, bindings = new Bindings(), path = '$'): string[] {
  const problems: string[] = [];
  compare(recorded, actual, bindings, path, problems);
  return problems;
}

function compare(recorded: unknown, actual: unknown, bindings: Bindings, path: string, problems: string[]): void {
  if (recorded !== null && typeof recorded === 'object' && typeof actual === 'string') {
    try {
      actual = JSON.parse(actual);
    } catch {
      problems.push(`${path}: recorded JSON, got the text ${JSON.stringify(actual)}`);
      return;
    }
  }
  if (typeof recorded === 'string') {
    if (typeof actual !== 'string') problems.push(`${path}: recorded a string, got ${JSON.stringify(actual)}`);
    else matchString(recorded, actual, bindings, path, problems);
    return;
  }
  if (Array.isArray(recorded)) {
    if (!Array.isArray(actual) || actual.length !== recorded.length) {
      problems.push(`${path}: recorded ${recorded.length} items, got ${JSON.stringify(actual)}`);
      return;
    }
    recorded.forEach((item, index) => compare(item, actual[index], bindings, `${path}[${index}]`, problems));
    return;
  }
  if (recorded !== null && typeof recorded === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      problems.push(`${path}: recorded an object, got ${JSON.stringify(actual)}`);
      return;
    }
    const expected = recorded as Record<string, unknown>;
    const got = actual as Record<string, unknown>;
    for (const key of Object.keys(expected)) {
      if (!Object.hasOwn(got, key)) problems.push(`${path}.${key}: recorded, missing`);
      else compare(expected[key], got[key], bindings, `${path}.${key}`, problems);
    }
    for (const key of Object.keys(got)) {
      if (!Object.hasOwn(expected, key)) problems.push(`${path}.${key}: not recorded, present: ${JSON.stringify(got[key])}`);
    }
    return;
  }
  if (recorded !== actual) problems.push(`${path}: recorded ${JSON.stringify(recorded)}, got ${JSON.stringify(actual)}`);
}
