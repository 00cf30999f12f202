/**
 * What the functions log: one JSON object per line, each naming the request id and the
 * operation, and never the caller's token or credentials inside an endpoint URL; with
 * LOG_FORMAT=pretty (npm start), one short readable line per entry instead.
 */
import { jest } from '@jest/globals';

process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
// The default, as on Lambda, whatever the shell running the tests holds.
delete process.env.LOG_FORMAT;
const { call, freshPortal, newSubscription } = await import('../support/api');
const { injectFault } = await import('../support/faults');
const { snsClient } = await import('../../shared/aws/sns');

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJwb3J0YWxfaWQiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ';
const ENDPOINT_PASSWORD = 'pa55-w0rd-in-url';

/** Every line written to stdout/stderr while `act` runs. */
async function linesLoggedDuring(act: () => Promise<unknown>): Promise<string[]> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await act();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  // Node's own process warnings (e.g. about jest's VM modules) are not the service's logs.
  const nodeWarning = /^\((node:\d+|Use `node)/;
  return written
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '' && !nodeWarning.test(line));
}

/** Requests that log each kind of line: a success, a refusal, a dependency failure, a list. */
async function requestsOfEveryOutcome(): Promise<void> {
  const portalId = freshPortal();
  const headers = { authorization: `Bearer ${TOKEN}` };
  const endpoint = `https://hook-user:${ENDPOINT_PASSWORD}@127.0.0.1:9/hook`;
  const created = await call('createSubscriptionRoute', { portalId, headers, body: newSubscription({ endpoint }) });
  expect(created.statusCode).toBe(200);
  await call('renameSubscriptionRoute', { portalId, headers, body: { config_id: created.body.record.configId, name: '' } });
  const removeFault = injectFault(snsClient, /CreateTopic/);
  try {
    const failed = await call('createSubscriptionRoute', { portalId, headers, body: newSubscription({ endpoint }) });
    expect(failed.statusCode).toBe(503);
  } finally {
    removeFault();
  }
  await call('listSubscriptionsRoute', { portalId, headers });
}

describe('the logs of a request', () => {
  it('are JSON lines with the request id and operation, and hold no token or endpoint credential', async () => {
    const lines = await linesLoggedDuring(requestsOfEveryOutcome);

    expect(lines.length).toBeGreaterThanOrEqual(5);
    const entries = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
    for (const entry of entries) {
      expect(entry).toMatchObject({
        level: expect.any(String),
        message: expect.any(String),
        function_request_id: expect.any(String),
        operation: expect.stringMatching(/^(createSubscriptionRoute|renameSubscriptionRoute|listSubscriptionsRoute)$/),
      });
    }
    expect(entries.map((entry) => entry.message)).toEqual(
      expect.arrayContaining(['request completed', 'request refused', 'dependency failure']),
    );
    const all = lines.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(ENDPOINT_PASSWORD);
  });

  it('with LOG_FORMAT=pretty, as npm start sets it, are one short readable line per entry, with no token or endpoint credential', async () => {
    const jsonLines = await linesLoggedDuring(requestsOfEveryOutcome);
    process.env.LOG_FORMAT = 'pretty';
    let lines: string[];
    try {
      lines = await linesLoggedDuring(requestsOfEveryOutcome);
    } finally {
      delete process.env.LOG_FORMAT;
    }

    // The same entries, a line each: time, level, operation, message, then the useful keys.
    expect(lines).toHaveLength(jsonLines.length);
    const operation = '(createSubscriptionRoute|renameSubscriptionRoute|listSubscriptionsRoute)';
    for (const line of lines) {
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d (INFO |WARN |ERROR) ${operation} [a-z]`));
      expect(line.length).toBeLessThan(300);
      expect(line).not.toMatch(/^\{|function_arn|function_request_id|cold_start/);
    }
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/ INFO  createSubscriptionRoute request completed 200 \d+ms$/),
        expect.stringMatching(/ INFO  renameSubscriptionRoute request refused 400 code=INVALID_REQUEST reason=".+"$/),
        expect.stringMatching(/ ERROR createSubscriptionRoute dependency failure error="\w+: .+"$/),
        expect.stringMatching(/ INFO  createSubscriptionRoute request completed 503 \d+ms$/),
        expect.stringMatching(/ INFO  listSubscriptionsRoute request completed 200 \d+ms$/),
      ]),
    );
    const all = lines.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(ENDPOINT_PASSWORD);
  });

  it('carry cold_start true only on the first request of a handler whose environment Lambda started on demand', async () => {
    const portalId = freshPortal();
    const configId = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';
    const coldStarts = async (operationId: 'activateSubscriptionRoute' | 'testSubscriptionRoute', body: unknown) =>
      (await linesLoggedDuring(() => call(operationId, { portalId, body }))).map((line) => (JSON.parse(line) as { cold_start?: boolean }).cold_start);
    const previous = process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
    try {
      // Provisioned concurrency: the environment was started ahead of any request.
      process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'provisioned-concurrency';
      const provisionedFirst = await coldStarts('activateSubscriptionRoute', { config_id: configId, status: 1 });
      process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
      const onDemandFirst = await coldStarts('testSubscriptionRoute', { config_id: configId });
      const onDemandSecond = await coldStarts('testSubscriptionRoute', { config_id: configId });

      expect([...new Set(provisionedFirst)]).toEqual([false]);
      expect([...new Set(onDemandFirst)]).toEqual([true]);
      expect([...new Set(onDemandSecond)]).toEqual([false]);
    } finally {
      if (previous === undefined) delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
      else process.env.AWS_LAMBDA_INITIALIZATION_TYPE = previous;
    }
  });
});
