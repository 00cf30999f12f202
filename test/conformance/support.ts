/**
 * What the conformance suites share: the recordings (JSON beside the suites), answers put in
 * the shape the recordings have, and the tally the summary line reports.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bindings, differences } from './match';

export interface Scenario {
  name: string;
  /** Where it was recorded: a repository's snapshot test, or (documented) an AWS page. */
  source: { repository: string; commit: string; file: string; test: string; recordedDate?: string } | { page: string; section: string };
  values: Record<string, unknown>;
  note?: string;
}

export function recordings(file: string): Map<string, Scenario> {
  const { scenarios } = JSON.parse(readFileSync(new URL(`./recordings/${file}`, import.meta.url), 'utf8')) as { scenarios: Scenario[] };
  return new Map(scenarios.map((scenario) => [scenario.name, scenario]));
}

/** How many recorded values and documented values were compared, for the summary line. */
export const tally = { recorded: 0, documented: 0, leftAsIs: [] as string[] };

/**
 * Compares every value of the scenario the run produced with its recording, one set of
 * placeholder bindings across the scenario (a token in one answer and the next must agree).
 */
export function expectConforms(scenario: Scenario | undefined, actual: Record<string, unknown>, leftAsIs: readonly string[] = []): void {
  if (!scenario) throw new Error('no such recording');
  const bindings = new Bindings();
  const problems: string[] = [];
  for (const [key, recorded] of Object.entries(scenario.values)) {
    if (!Object.hasOwn(actual, key)) problems.push(`${key}: not produced by the run`);
    else problems.push(...differences(recorded, actual[key], bindings, key));
  }
  const count = Object.keys(scenario.values).length;
  if ('page' in scenario.source) tally.documented += count;
  else tally.recorded += count;
  // A difference left as it is (docs/local.md says why) must still be there: once it is gone, its listing goes too.
  const left = problems.filter((problem) => leftAsIs.some((path) => problem.startsWith(`${path}:`)));
  expect(problems.filter((problem) => !left.includes(problem))).toEqual([]);
  expect(leftAsIs.filter((path) => !left.some((problem) => problem.startsWith(`${path}:`)))).toEqual([]);
  if (left.length > 0) tally.leftAsIs.push(...left.map((problem) => `${scenario.name}: ${problem}`));
}

/** An SDK answer as LocalStack recorded it: the output, or the error's wire fields, and the status. */
export async function answer(call: Promise<object>): Promise<Record<string, unknown>> {
  try {
    const { $metadata, ...output } = (await call) as { $metadata: { httpStatusCode?: number } } & Record<string, unknown>;
    return { ...output, ResponseMetadata: { HTTPStatusCode: $metadata.httpStatusCode } };
  } catch (error) {
    const { Error: wire, $metadata } = error as { Error?: { Code: string; Message: string; Type?: string }; $metadata?: { httpStatusCode?: number } };
    const fault = error as { name: string; message: string; $fault?: string };
    const Error = wire ?? { Code: fault.name, Message: fault.message };
    return { Error, ResponseMetadata: { HTTPStatusCode: $metadata?.httpStatusCode } };
  }
}

/** The XML of a bare URL visit (a SubscribeURL), as LocalStack's tests read it (xmltodict). */
export function xmlAnswer(text: string, status: number): Record<string, unknown> {
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  if (text.includes('<ErrorResponse')) {
    return {
      ErrorResponse: {
        Error: { Code: field('Code'), Message: field('Message'), Type: field('Type') },
        RequestId: field('RequestId'),
      },
    };
  }
  const action = /<(\w+)Response /.exec(text)?.[1] ?? '';
  const result = field('SubscriptionArn');
  return {
    [`${action}Response`]: {
      ...(result !== undefined ? { [`${action}Result`]: { SubscriptionArn: result } } : {}),
      ResponseMetadata: { HTTPStatusCode: status },
    },
  };
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An endpoint on 127.0.0.1 that answers 200 and keeps what it got. */
export async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sns-endpoint`, received, server };
}

/** Headers in the recording's spelling (Title-Case), as LocalStack's receiver logged them. */
export function titleCaseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()), String(value)]),
  );
}
