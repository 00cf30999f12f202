/**
 * What goes into each function's bundle as `cdk synth` makes it: the SDK clients and middleware
 * of its own operation only, CommonJS with a source map of our own sources that names the
 * TypeScript file, line and function in a stack trace as deployed, and credentials as Lambda
 * gives them. The rest of the template is checked by template.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_SETTINGS } from '../../infra/aws/deployment-settings';
import { esbuildOptionsFor } from '../../infra/aws/function-bundling';
import { ownSourceMap, type SourceMapV3 } from '../../infra/aws/own-source-map';
import { PROJECT_ROOT } from '../../infra/aws/service-function';
import { OPERATION_PERMISSIONS } from '../../infra/aws/operation-permissions';
import { OPERATIONS } from '../../shared/operations';
import { logicalIdOf } from '../support/cdk-app';
import { httpEvent } from '../support/http-events';
import { bundleDirectoryOf, functionIdOf, resources, stack, synthesizeBeforeAll } from '../support/synthesized-stack';

synthesizeBeforeAll();

describe('the bundles', () => {
  const sizes: Record<string, string> = {};
  afterAll(() => console.log(`Bundle sizes (index.js + index.js.map):\n${JSON.stringify(sizes, null, 2)}`));

  it.each(OPERATIONS.map((op) => [op.handler, op] as const))(
    '%s runs from its own bundle, which holds the SNS client exactly when its operation calls SNS, the idempotency code only for create and replay, the body parser only with a body and only its own compiled body validator, no credential provider a Lambda sandbox cannot use, and is CommonJS with a map of our own sources',
    (_handler, op) => {
      expect(resources[functionIdOf(op)]!.Metadata).toMatchObject({ SamResourceId: op.handler, 'aws:asset:is-bundled': true });
      const directory = bundleDirectoryOf(functionIdOf(op));
      const code = readFileSync(join(directory, 'index.js'), 'utf8');
      const kib = (file: string) => `${(statSync(join(directory, file)).size / 1024).toFixed(1)} KiB`;
      sizes[op.handler] = `${kib('index.js')} + ${kib('index.js.map')}`;

      const callsSns = OPERATION_PERMISSIONS[op.id].topics.length > 0;
      expect(code.includes('SNSServiceException')).toBe(callsSns);
      expect(code.includes('DynamoDBServiceException')).toBe(true);
      expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(op.id === 'createSubscriptionRoute' || op.id === 'replayDeadLettersRoute');
      // The JSON body parser only where the operation takes a body (list and delete ignore it).
      const takesBody = !['listSubscriptionsRoute', 'deleteSubscriptionRoute', 'listDeadLettersRoute', 'listAttemptsRoute', 'listMessagesRoute'].includes(op.id);
      expect(code.includes('request body is not valid JSON')).toBe(takesBody);
      // Only its own body's compiled validator and checks: the event list's rules and catalog
      // check only where the body has events, the protocol's, the name's, the status's and the
      // aliases' only where the body has them.
      const takesEvents = ['createSubscriptionRoute', 'updateSubscriptionRoute'].includes(op.id);
      const addressed = [
        'updateSubscriptionRoute',
        'activateSubscriptionRoute',
        'renameSubscriptionRoute',
        'testSubscriptionRoute',
        'confirmSubscriptionRoute',
        'replayDeadLettersRoute',
        'resendMessageRoute',
      ].includes(op.id);
      expect(code.includes('must list at least one event kind')).toBe(takesEvents);
      expect(code.includes('unknown event kind')).toBe(takesEvents);
      expect(code.includes('names a FIFO queue')).toBe(op.id === 'createSubscriptionRoute');
      expect(code.includes('must be one of https, http')).toBe(op.id === 'createSubscriptionRoute');
      expect(code.includes('must not be empty')).toBe(['createSubscriptionRoute', 'renameSubscriptionRoute'].includes(op.id));
      expect(code.includes('must be 1 (activated)')).toBe(op.id === 'activateSubscriptionRoute');
      expect(code.includes('name different subscriptions')).toBe(addressed);
      // The message list's query validator only in its own bundle (its time checks once kept it in every one).
      expect(code.includes('must be pending, delivered, failed or dead-lettered')).toBe(op.id === 'listMessagesRoute');
      // The filter-policy language's validator only where a body carries a filter.
      expect(code.includes('is not an operator of SNS filter policies')).toBe(['createSubscriptionRoute', 'updateSubscriptionRoute', 'testFilterRoute'].includes(op.id));
      // Validators compiled at build time: no schema compiler (ajv's), no schema library, none of
      // the schemas' annotations, in any bundle.
      expect(code.includes('ajv implementation error')).toBe(false);
      expect(code.includes('$ZodType')).toBe(false);
      expect(code.includes('x-error')).toBe(false);
      expect(code.includes('Trimmed of surrounding whitespace')).toBe(false);
      expect(code.includes('BatchProcessor')).toBe(false);
      // The SDK's default chain, less the providers that need profile files, SSO, a credential
      // process, a web identity token or EC2 instance metadata (infra/aws/unavailable-credential-providers.ts).
      expect(code.includes("is not in this function's bundle")).toBe(true);
      for (const marker of ['sso_start_url', 'credential_process', 'AssumeRoleWithWebIdentity', 'GetRoleCredentials', 'SSOOIDC']) {
        expect({ marker, bundled: code.includes(marker) }).toEqual({ marker, bundled: false });
      }
      expect(code.includes('AWS_CONTAINER_CREDENTIALS_FULL_URI')).toBe(true);
      expect(code).toMatch(/^"use strict";/);
      expect(code).toMatch(/module\.exports\s*=\s*\{[^}]*\bhandler\b[^}]*\}/);
      expect(code).toMatch(/sourceMappingURL=index\.js\.map\s*$/);
      expect(statSync(join(directory, 'index.js')).size).toBeLessThan(1024 * 1024);
      // The map holds our own sources only (infra/aws/own-source-map.ts).
      const map = JSON.parse(readFileSync(join(directory, 'index.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
      expect(map.sources.filter((source) => source.includes('node_modules'))).toEqual([]);
      expect(map.sources.some((source) => source.endsWith(`functions/${op.handler}.ts`))).toBe(true);
      expect(map.sourcesContent).toBeUndefined();
    },
  );

  describe('stack traces, as deployed (no NODE_OPTIONS), name the TypeScript file, line and function of our code as --enable-source-maps does', () => {
    const createId = () => functionIdOf(OPERATIONS.find((op) => op.handler === 'createSubscription')!);

    it.each([
      ['createSubscription', createId],
      ['dispatchPortalEvents', () => logicalIdOf(stack, stack.delivery.dispatcher.function)],
    ])('%s: a cold start without TABLE_NAME, failing in the configuration check', (_name, functionId) => {
      const directory = bundleDirectoryOf(functionId());
      const stackOf = (nodeOptions?: string) => {
        const run = spawnSync(process.execPath, ['--eval', "require('./index.js')"], {
          cwd: directory,
          env: { PATH: process.env.PATH, ...(nodeOptions && { NODE_OPTIONS: nodeOptions }) },
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(run.status).toBe(1);
        return run.stderr.slice(run.stderr.indexOf('ConfigurationError: ')).split('\n').filter((line) => line.startsWith('    at ')).slice(0, 2);
      };

      // Act
      const deployed = stackOf();
      const nodeMapped = stackOf('--enable-source-maps');

      // Assess
      expect(deployed).toEqual([
        expect.stringMatching(/^ {4}at failOnProblems \(\S*\/shared\/config\.ts:\d+:\d+\)$/),
        expect.stringMatching(/^ {4}at \S.* \(\S*\/shared\/environment\.ts:\d+:\d+\)$/),
      ]);
      expect(deployed).toEqual(nodeMapped);
    });

    it('createSubscription: an invocation whose DynamoDB call fails, through the async frames of our code', async () => {
      const dynamoDb = await refusingDynamoDb();
      try {
        const stackOf = async (nodeOptions?: string) => {
          const logs = await invokeCreate({ AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_ENDPOINT_URL_DYNAMODB: dynamoDb.endpoint, ...(nodeOptions && { NODE_OPTIONS: nodeOptions }) });
          const failure = logs.find((entry) => entry.message === 'dependency failure') as { error?: { stack?: string } } | undefined;
          return failure?.error?.stack?.split('\n').filter((line) => line.startsWith('    at '));
        };

        // Act
        const deployed = await stackOf();
        const nodeMapped = await stackOf('--enable-source-maps');

        // Assess
        // Create's first DynamoDB call is the portal's rate limit (a middleware of the HTTP chain),
        // written by the rate-limit bucket's owner.
        expect(deployed).toContainEqual(expect.stringMatching(/^ {4}at async \S+ \(\S*\/shared\/data\/rate-limit-buckets\.ts:\d+:\d+\)$/));
        expect(deployed).toEqual(nodeMapped);
      } finally {
        await dynamoDb.close();
      }
    });
  });

  it("the map cut to our own sources maps every position of our code as esbuild's whole map does, and none of a dependency's", async () => {
    // esbuild's own map of createSubscription's bundle, before the cut the stack makes.
    const outdir = mkdtempSync(join(tmpdir(), 'own-source-map-'));
    await build(esbuildOptionsFor({ index: join(PROJECT_ROOT, 'functions/createSubscription.ts') }, outdir));
    const whole = JSON.parse(readFileSync(join(outdir, 'index.js.map'), 'utf8')) as SourceMapV3;
    const own = ownSourceMap(whole);
    const lines = readFileSync(join(outdir, 'index.js'), 'utf8').split('\n');
    type Entry = { originalSource?: string; originalLine?: number; originalColumn?: number; name?: string };
    const [wholeMap, ownMap] = [whole, own].map((map) => new SourceMap(map as unknown as ConstructorParameters<typeof SourceMap>[0]));

    // Act: every third column of the bundle, looked up in both maps.
    const differences: string[] = [];
    let ours = 0;
    lines.forEach((text, line) => {
      for (let column = 0; column < text.length; column += 3) {
        const [before, after] = [wholeMap!.findEntry(line, column) as Entry, ownMap!.findEntry(line, column) as Entry];
        const oursBefore = before.originalSource !== undefined && !before.originalSource.includes('node_modules');
        if (oursBefore) ours++;
        const expected = oursBefore ? [before.originalSource, before.originalLine, before.originalColumn, before.name] : [undefined, undefined, undefined, undefined];
        const actual = [after.originalSource, after.originalLine, after.originalColumn, after.name];
        if (JSON.stringify(actual) !== JSON.stringify(expected) && differences.length < 5) differences.push(`${line}:${column} ${JSON.stringify({ expected, actual })}`);
      }
    });

    // Assess
    expect(differences).toEqual([]);
    expect(ours).toBeGreaterThan(1_000);
    expect(JSON.stringify(own).length).toBeLessThan(JSON.stringify(whole).length / 5);
  });

  it('createSubscription signs with the credentials Lambda gives in its environment, else with container credentials, else fails at once', async () => {
    const dynamoDb = await refusingDynamoDb();
    try {
      const signedWith = async (env: Record<string, string>) => {
        dynamoDb.accessKeys.length = 0;
        const started = Date.now();
        const logs = await invokeCreate({ AWS_ENDPOINT_URL_DYNAMODB: dynamoDb.endpoint, ...env });
        const messages = logs.map((entry) => JSON.stringify(entry)).join('\n');
        return { accessKeys: [...new Set(dynamoDb.accessKeys)], noCredentials: messages.includes('Could not load credentials from any providers'), seconds: (Date.now() - started) / 1000 };
      };

      // Act
      const fromEnvironment = await signedWith({ AWS_ACCESS_KEY_ID: 'ASIAENVIRONMENT', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
      const fromContainer = await signedWith({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `${dynamoDb.endpoint}/credentials`, AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token' });
      const fromNothing = await signedWith({});

      // Assess
      expect(fromEnvironment).toMatchObject({ accessKeys: ['ASIAENVIRONMENT'], noCredentials: false });
      expect(fromContainer).toMatchObject({ accessKeys: ['ASIACONTAINER'], noCredentials: false });
      expect(dynamoDb.containerTokens).toEqual(['container-token']);
      // No profile files, process or instance metadata to wait for.
      expect(fromNothing).toMatchObject({ accessKeys: [], noCredentials: true });
      expect(fromNothing.seconds).toBeLessThan(5);
    } finally {
      await dynamoDb.close();
    }
  });

  /** A stand-in for DynamoDB that refuses every request (and records who signed it), and serves container credentials at /credentials. */
  async function refusingDynamoDb() {
    const accessKeys: string[] = [];
    const containerTokens: string[] = [];
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url === '/credentials') {
          containerTokens.push(String(request.headers.authorization));
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ AccessKeyId: 'ASIACONTAINER', SecretAccessKey: 'secret', Token: 'token', Expiration: new Date(Date.now() + 3_600_000).toISOString() }));
          return;
        }
        const accessKey = /Credential=([^/]+)\//.exec(String(request.headers.authorization))?.[1];
        if (accessKey) accessKeys.push(accessKey);
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ValidationException', message: 'refused by the test' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      accessKeys,
      containerTokens,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** Invokes the synthesized createSubscription bundle once, in a process with only `env` (and PATH, TABLE_NAME, AWS_REGION, the publishers create's topics need); answers its log lines. */
  async function invokeCreate(env: Record<string, string>): Promise<Record<string, unknown>[]> {
    const directory = bundleDirectoryOf(functionIdOf(OPERATIONS.find((op) => op.handler === 'createSubscription')!));
    const event = httpEvent('createSubscriptionRoute', {
      portalId: 'bundle-test',
      body: { name: 'n', protocol: 'https', endpoint: 'https://example.com/hooks', events: [DEFAULT_SETTINGS.eventKinds[0]!] },
    });
    const script = [
      "const { handler } = require('./index.js');",
      `handler(${JSON.stringify(event)}, { awsRequestId: 'r', functionName: 'f', invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:f', getRemainingTimeInMillis: () => 10000 })`,
      '  .then(() => process.exit(0));',
    ].join('\n');
    // No developer's ~/.aws files, as in a sandbox.
    const child = spawn(process.execPath, ['--eval', script], {
      cwd: directory,
      env: { PATH: process.env.PATH, TABLE_NAME: 'subscriptions', AWS_REGION: 'us-east-1', TOPIC_PUBLISHER_ARNS: 'arn:aws:iam::000000000000:role/publisher', TOPIC_MANAGER_ARNS: 'arn:aws:iam::000000000000:role/manager', AWS_CONFIG_FILE: '/nonexistent/config', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials', ...env },
    });
    let logs = '';
    child.stdout.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    return logs.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));
  }

  it('the reconciler holds the listings, the scan and topic creation, and none of the HTTP chain', () => {
    const directory = bundleDirectoryOf(logicalIdOf(stack, stack.reconciliation.reconciler.function));
    const code = readFileSync(join(directory, 'index.js'), 'utf8');
    sizes.reconcileTopics = `${(statSync(join(directory, 'index.js')).size / 1024).toFixed(1)} KiB`;

    for (const command of ['"ListTopics"', '"ListSubscriptions"', '"Scan"', '"CreateTopic"', '"DeleteTopic"']) {
      expect({ command, bundled: code.includes(command) }).toEqual({ command, bundled: true });
    }
    expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(false);
    expect(code.includes('request body is not valid JSON')).toBe(false);
    expect(code.includes('BatchProcessor')).toBe(false);
  });

  it('the recorder holds its partial batch response and the transaction, and neither SNS nor the HTTP chain', () => {
    const directory = bundleDirectoryOf(logicalIdOf(stack, stack.delivery.recorder.function));
    const code = readFileSync(join(directory, 'index.js'), 'utf8');
    sizes.recordDeadLetters = `${(statSync(join(directory, 'index.js')).size / 1024).toFixed(1)} KiB`;

    expect(code.includes('batchItemFailures')).toBe(true);
    expect(code.includes('"TransactWriteItems"')).toBe(true);
    expect(code.includes('SNSServiceException')).toBe(false);
    expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(false);
    expect(code.includes('request body is not valid JSON')).toBe(false);
  });

  it('the dispatcher holds PublishBatch, and neither a batch processor nor the HTTP chain', () => {
    const directory = bundleDirectoryOf(logicalIdOf(stack, stack.delivery.dispatcher.function));
    const code = readFileSync(join(directory, 'index.js'), 'utf8');
    sizes.dispatchPortalEvents = `${(statSync(join(directory, 'index.js')).size / 1024).toFixed(1)} KiB`;

    // It answers the partial batch response itself, having grouped the batch by portal.
    expect(code.includes('BatchProcessor')).toBe(false);
    // Commands keep their operation names through minification.
    expect(code.includes('"PublishBatch"')).toBe(true);
    expect(code.includes('"CreateTopic"')).toBe(false);
    expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(false);
    expect(code.includes('request body is not valid JSON')).toBe(false);
  });
});
