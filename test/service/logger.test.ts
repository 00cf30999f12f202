/**
 * The logger never throws, whatever it is given, in either format: each call writes one line
 * (valid JSON by default), within the logger's bounds. An error the error envelope logs, however
 * odd, still gets its 5xx answer. And where one process serves several invocations at once,
 * each line carries the request id, trace id and keys of the invocation it belongs to.
 */
import { jest } from '@jest/globals';
import { AsyncLocalStorage } from 'node:async_hooks';
import { errorWithCauseLoop, hostileValues } from '../support/hostile-values';
import { entryWrittenBy, linesWrittenBy } from '../support/log-lines';

process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
// The default, as on Lambda, whatever the shell running the tests holds.
delete process.env.LOG_FORMAT;
delete process.env._X_AMZN_TRACE_ID;
const { LOG_LIMITS, logger, withInvocationLogging } = await import('../../shared/logger');
const { changeLimitPerPortal, httpOperation, readLimitPerPortal } = await import('../../shared/http/operation');
const { listSubscriptionsRoute, renameSubscriptionRoute } = await import('../../shared/operations');
const { httpEvent } = await import('../support/http-events');
const { lambdaContext } = await import('../support/lambda-context');

const HOSTILE = hostileValues(LOG_LIMITS);

describe.each(['json', 'pretty'] as const)('logging a hostile value, format %s', (format) => {
  it.each(Object.keys(HOSTILE))('%s, as a field and as the whole extra: no throw, one line each, within the line bound', async (name) => {
    const { make, shows } = HOSTILE[name]!;
    const lines = await linesWrittenBy(() => {
      logger.error('as a field', { value: make() });
      logger.error('as the extra', make() as Record<string, unknown>);
    }, format);

    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(LOG_LIMITS.lineChars + 1);
    if (format === 'json') {
      const [field, extra] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      shows(field!.value);
      expect(extra).toMatchObject({ level: 'ERROR', message: 'as the extra' });
      // Written by the logger's own path, not its last resort.
      expect(extra).not.toHaveProperty('log_error');
    } else {
      expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d ERROR webhook-subscriptions as a field/);
    }
  });
});

describe('the line', () => {
  it('of an error whose cause loops names each cause once, in the readable format too', async () => {
    const [line] = await linesWrittenBy(() => logger.error('failed', errorWithCauseLoop()), 'pretty');
    expect(line).toMatch(/ ERROR webhook-subscriptions failed error="Error: outer failure \(.+\), caused by Error: inner failure \(.+\), caused by \[Circular\]"$/);
  });

  it('holds many large values within the line bound, still as JSON', async () => {
    const entry = await entryWrittenBy(() =>
      logger.info('many', Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`field${index}`, 'y'.repeat(100_000)]))),
    );
    expect(JSON.stringify(entry).length).toBeLessThanOrEqual(LOG_LIMITS.lineChars);
    expect(entry.field0).toMatch(/^y+…\[\d+ more chars\]$/);
    expect(entry.field39).toMatch(/^(\[Truncated: line limit\]|…\[100000 more chars\])$/);
  });

  it('is still written, with what went wrong, when building it fails unforeseen', async () => {
    const stringify = jest.spyOn(JSON, 'stringify').mockImplementationOnce(() => {
      throw new Error('stringify broke');
    });
    let entry: Record<string, any>;
    try {
      entry = await entryWrittenBy(() => logger.error('could not do it', { key: 'value' }));
    } finally {
      stringify.mockRestore();
    }
    expect(entry).toMatchObject({ level: 'ERROR', message: 'could not do it', log_error: 'entry not logged: Error: stringify broke' });

    const toTimeString = jest.spyOn(Date.prototype, 'toTimeString').mockImplementationOnce(() => {
      throw new Error('clock broke');
    });
    let lines: string[];
    try {
      lines = await linesWrittenBy(() => logger.error('could not do it', { key: 'value' }), 'pretty');
    } finally {
      toTimeString.mockRestore();
    }
    expect(lines).toEqual([expect.stringMatching(/ ERROR could not do it \(entry not logged: Error: clock broke\)$/)]);
  });

  it('in the readable format, writes objects where text goes (prototype-less, as the logger builds them) as JSON, not the last-resort line', async () => {
    const oddMessage = new Error('placeholder');
    (oddMessage as { message: unknown }).message = { text: 'not a string' };
    const lines = await linesWrittenBy(() => {
      logger.error('cause', new Error('outer', { cause: { code: 1 } }));
      logger.info('keys', { statusCode: { code: 200 }, durationMs: { ms: 5 }, nested: { left: 'out' }, plain: 'kept' });
      logger.error('message', oddMessage);
    }, 'pretty');

    expect(lines).toEqual([
      expect.stringMatching(/ ERROR webhook-subscriptions cause error="Error: outer( \(.+\))?, caused by \{\\"code\\":1\}"$/),
      expect.stringMatching(/ INFO  webhook-subscriptions keys \{"code":200\} \{"ms":5\}ms plain=kept$/),
      expect.stringMatching(/ ERROR webhook-subscriptions message error="Error: \{\\"text\\":\\"not a string\\"\}( \(.+\))?"$/),
    ]);
  });

  it("keeps its own keys: a caller's fields or appended keys cannot replace the level, message, timestamp, service or the invocation's ids", async () => {
    const spoof = {
      level: 'DEBUG',
      message: 'another message',
      timestamp: '2000-01-01T00:00:00.000Z',
      service: 'another service',
      operation: 'anotherOperation',
      function_request_id: 'spoofed',
      function_name: 'spoofed',
      xray_trace_id: 'spoofed',
      cold_start: true,
    };
    const context = lambdaContext('someOperation');
    const handler = withInvocationLogging('someOperation', async () => {
      logger.appendKeys({ function_request_id: 'appended' });
      logger.info('inside', spoof);
    });
    const [inside, outside] = (
      await linesWrittenBy(async () => {
        await handler(undefined, context);
        logger.warn('outside', spoof);
      })
    ).map((line) => JSON.parse(line) as Record<string, unknown>);

    expect(Object.keys(inside!).slice(0, 4)).toEqual(['level', 'message', 'timestamp', 'service']);
    expect(inside).toMatchObject({
      level: 'INFO',
      message: 'inside',
      service: 'webhook-subscriptions',
      operation: 'someOperation',
      function_request_id: context.awsRequestId,
      function_name: context.functionName,
      cold_start: false,
    });
    expect(inside!.timestamp).not.toBe(spoof.timestamp);
    expect(inside!.xray_trace_id).not.toBe('spoofed');
    // Outside an invocation there are no ids, and none a caller makes up.
    expect(outside).toMatchObject({ level: 'WARN', message: 'outside', service: 'webhook-subscriptions', operation: 'anotherOperation' });
    for (const key of ['function_request_id', 'function_name', 'xray_trace_id', 'cold_start']) expect(outside).not.toHaveProperty(key);
  });

  it('is dropped, without a throw, when stdout itself throws', () => {
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => {
      throw new Error('EPIPE');
    });
    try {
      expect(() => logger.error('nowhere to go', errorWithCauseLoop())).not.toThrow();
    } finally {
      stdout.mockRestore();
    }
  });
});

describe('the level', () => {
  // Lambda gives the function's application log level (its logging configuration, set by the
  // stack) as AWS_LAMBDA_LOG_LEVEL; the logger writes nothing below it, as Lambda would drop it.
  it("is Lambda's application log level when POWERTOOLS_LOG_LEVEL does not name one", async () => {
    const { Logger } = await import('../../shared/logger');
    const saved = { powertools: process.env.POWERTOOLS_LOG_LEVEL, lambda: process.env.AWS_LAMBDA_LOG_LEVEL };
    delete process.env.POWERTOOLS_LOG_LEVEL;
    process.env.AWS_LAMBDA_LOG_LEVEL = 'WARN';
    try {
      const atWarn = new Logger({ serviceName: 'level-test' });
      const lines = await linesWrittenBy(() => {
        atWarn.info('left out');
        atWarn.warn('written');
      });
      expect(lines.map((line) => JSON.parse(line).message)).toEqual(['written']);
    } finally {
      process.env.POWERTOOLS_LOG_LEVEL = saved.powertools;
      if (saved.lambda === undefined) delete process.env.AWS_LAMBDA_LOG_LEVEL;
      else process.env.AWS_LAMBDA_LOG_LEVEL = saved.lambda;
    }
  });
});

describe('a handler whose error has a cause that loops', () => {
  it('answers the 500 envelope, and logs the error with the loop cut', async () => {
    const handler = httpOperation(renameSubscriptionRoute, {
      portalLimit: changeLimitPerPortal,
      run: async () => {
        throw errorWithCauseLoop();
      },
    });
    let answer: { statusCode?: number; body?: string } | undefined;
    const lines = await linesWrittenBy(async () => {
      answer = (await handler(httpEvent('renameSubscriptionRoute'), lambdaContext('renameSubscriptionRoute'))) as typeof answer;
    });

    expect(answer?.statusCode).toBe(500);
    expect(JSON.parse(answer!.body!)).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    const failure = lines.map((line) => JSON.parse(line)).find((entry) => entry.message === 'unexpected failure');
    expect(failure).toMatchObject({
      level: 'ERROR',
      operation: 'renameSubscriptionRoute',
      error: { message: 'outer failure', cause: { message: 'inner failure', cause: '[Circular]' } },
    });
  });
});

describe('invocations served at once by one process', () => {
  /** A handler that logs, waits for `release`, and logs again, with a key of its own. */
  function interleavingHandler() {
    const gates = new Map<string, () => void>();
    const handler = httpOperation(listSubscriptionsRoute, {
      portalLimit: readLimitPerPortal,
      run: async ({ portalId }) => {
        logger.appendKeys({ portalId });
        // `invocation`, given with each call, says which invocation wrote the line whatever the
        // logger keeps; the appended portalId and the context's ids must agree with it.
        logger.info('started', { invocation: portalId });
        await new Promise<void>((resolve) => gates.set(portalId, resolve));
        logger.info('finishing', { invocation: portalId });
        return { message: 'done' };
      },
    });
    const release = async (portalId: string) => {
      while (!gates.has(portalId)) await new Promise((resolve) => setImmediate(resolve));
      gates.get(portalId)!();
    };
    return { handler, release };
  }

  /** The request id, trace id and appended portal of the lines each invocation wrote itself. */
  function byInvocation(lines: string[]) {
    const seen = new Map<string, Set<string>>();
    for (const entry of lines.map((line) => JSON.parse(line)).filter((entry) => entry.invocation !== undefined)) {
      const ids = seen.get(entry.invocation) ?? new Set<string>();
      ids.add(`${entry.function_request_id} ${entry.xray_trace_id} ${entry.portalId}`);
      seen.set(entry.invocation, ids);
    }
    return Object.fromEntries([...seen].map(([invocation, ids]) => [invocation, [...ids]]));
  }

  /** The request ids of the request log's lines (middleware, after the operation). */
  const requestLogIds = (lines: string[]) =>
    lines
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.message === 'request completed')
      .map((entry) => entry.function_request_id)
      .sort();

  const TRACE_A = '1-6743f0a1-aaaaaaaaaaaaaaaaaaaaaaaa';
  const TRACE_B = '1-6743f0a2-bbbbbbbbbbbbbbbbbbbbbbbb';

  afterEach(() => {
    delete process.env._X_AMZN_TRACE_ID;
  });

  it('log each its own request id and trace id, read from _X_AMZN_TRACE_ID as each starts', async () => {
    const { handler, release } = interleavingHandler();
    const contextA = lambdaContext('listSubscriptionsRoute');
    const contextB = lambdaContext('listSubscriptionsRoute');

    const lines = await linesWrittenBy(async () => {
      process.env._X_AMZN_TRACE_ID = `Root=${TRACE_A};Parent=53995c3f42cd8ad8;Sampled=1`;
      const a = handler(httpEvent('listSubscriptionsRoute', { portalId: 'portal-a' }), contextA);
      process.env._X_AMZN_TRACE_ID = `Root=${TRACE_B};Parent=53995c3f42cd8ad9;Sampled=0`;
      const b = handler(httpEvent('listSubscriptionsRoute', { portalId: 'portal-b' }), contextB);
      // B finishes first, then A: each logs after the other has started.
      await release('portal-b');
      await b;
      await release('portal-a');
      await a;
    });

    expect(lines.length).toBe(6);
    expect(byInvocation(lines)).toEqual({
      'portal-a': [`${contextA.awsRequestId} ${TRACE_A} portal-a`],
      'portal-b': [`${contextB.awsRequestId} ${TRACE_B} portal-b`],
    });
    expect(requestLogIds(lines)).toEqual([contextA.awsRequestId, contextB.awsRequestId].sort());
  });

  it("log each its own trace id from the runtime's per-invocation store (Lambda Managed Instances)", async () => {
    // What Lambda's runtime provides under multi-concurrency: the trace header per invocation,
    // in an AsyncLocalStorage it runs each invocation in; the process-wide variable is stale.
    const runtimeStore = new AsyncLocalStorage<string>();
    const global = globalThis as { awslambda?: unknown };
    global.awslambda = { InvokeStore: { getXRayTraceId: () => runtimeStore.getStore() } };
    process.env._X_AMZN_TRACE_ID = 'Root=1-00000000-stalestalestalestalestale';
    const { handler, release } = interleavingHandler();
    const contextA = lambdaContext('listSubscriptionsRoute');
    const contextB = lambdaContext('listSubscriptionsRoute');

    let lines: string[];
    try {
      lines = await linesWrittenBy(async () => {
        const a = runtimeStore.run(`Root=${TRACE_A};Sampled=1`, () => handler(httpEvent('listSubscriptionsRoute', { portalId: 'portal-a' }), contextA));
        const b = runtimeStore.run(`Root=${TRACE_B};Sampled=1`, () => handler(httpEvent('listSubscriptionsRoute', { portalId: 'portal-b' }), contextB));
        await release('portal-a');
        await release('portal-b');
        await Promise.all([a, b]);
      });
    } finally {
      delete global.awslambda;
    }

    expect(byInvocation(lines)).toEqual({
      'portal-a': [`${contextA.awsRequestId} ${TRACE_A} portal-a`],
      'portal-b': [`${contextB.awsRequestId} ${TRACE_B} portal-b`],
    });
  });

  it('report cold_start on the first invocation of the handler only, even when the second starts before it ends', async () => {
    process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
    let releaseFirst = () => {};
    const handler = withInvocationLogging('someOperation', async (first: boolean) => {
      logger.info('started');
      if (first) await new Promise<void>((resolve) => (releaseFirst = resolve));
      logger.info('finishing');
    });
    let lines: string[];
    try {
      lines = await linesWrittenBy(async () => {
        const first = handler(true, lambdaContext('someOperation'));
        await handler(false, lambdaContext('someOperation'));
        releaseFirst();
        await first;
      });
    } finally {
      delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
    }
    expect(lines.map((line) => JSON.parse(line)).map(({ message, cold_start }) => `${message} ${cold_start}`)).toEqual([
      'started true',
      'started false',
      'finishing false',
      'finishing true',
    ]);
  });
});
