/**
 * The OpenAPI document: valid OpenAPI 3.1 (linted by @seriousme/openapi-schema-validator), built
 * from the operations table and the request schemas themselves, served by `npm start` and
 * written by `npm run openapi`; and the check every suite's answers go through
 * (support/openapi-responses.ts) refuses what the document does not describe. The last part
 * makes the local stack give each operation's every status it can give on demand, and holds
 * the answers to the document.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { execFileSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { BodyReader } from '../../shared/contract/body-reader';
import { buildOpenApiDocument, documentOperationId, SECURITY_SCHEME } from '../../shared/contract/openapi-document';
import * as bodies from '../../shared/contract/request-bodies';
import * as schemas from '../../shared/contract/schemas';
import { STACK_DOCUMENT_FILE } from '../../infra/aws/stack-openapi-document';
import { loadConfig } from '../../shared/config';
import { OPERATIONS, type OperationId } from '../../shared/operations';
import { documentedAnswersOf, expectDocumentedHttpAnswer } from '../support/openapi-responses';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/wait-for';
import { call, forgeToken, lastConfirmationRequestsMinutesAgo, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';

/**
 * The event kinds the handlers run with, read when asked: importing shared/environment here
 * would fix the table name of this suite's handlers before its local stack sets its own.
 */
const eventKinds = () => loadConfig(process.env).eventKinds;

/** Each body's schema as written (shared/contract/schemas.ts), and the reader its function runs. */
const REQUEST_BODIES: Partial<
  Record<OperationId, { schema: { $id: string; properties: object }; reader: BodyReader<unknown>; optional?: readonly string[] }>
> = {
  createSubscriptionRoute: { schema: schemas.createSubscriptionRequest, reader: bodies.createSubscriptionRequest },
  updateSubscriptionRoute: { schema: schemas.updateSubscriptionRequest, reader: bodies.updateSubscriptionRequest },
  activateSubscriptionRoute: { schema: schemas.activateSubscriptionRequest, reader: bodies.activateSubscriptionRequest },
  renameSubscriptionRoute: { schema: schemas.renameSubscriptionRequest, reader: bodies.renameSubscriptionRequest },
  testSubscriptionRoute: { schema: schemas.testSubscriptionRequest, reader: bodies.testSubscriptionRequest },
  confirmSubscriptionRoute: { schema: schemas.confirmSubscriptionRequest, reader: bodies.confirmSubscriptionRequest },
  replayDeadLettersRoute: { schema: schemas.replayDeadLettersRequest, reader: bodies.replayDeadLettersRequest, optional: ['eventIds'] },
};

// The suites' document and checker. This suite reads the configuration at load (the readers'
// catalog check), so its own local stack's handlers keep the test environment's settings.
const { document: openApiDocument, undocumentedAnswer } = await documentedAnswersOf();
const EXAMPLE_ID = schemas.EXAMPLE_CONFIG_ID;

/** A schema of the contract as the document must hold it: the same, referring to the catalog for an event kind. */
function asComponent({ $schema: _dialect, $id: _id, ...schema }: { $schema?: string; $id: string }): unknown {
  const eventKind = JSON.stringify(schemas.eventKindEntry);
  return JSON.parse(JSON.stringify(schema).replaceAll(eventKind, JSON.stringify({ $ref: '#/components/schemas/EventKind' })));
}
const componentNameOf = (schema: { $id: string }) => schemas.schemaNameOf(schema.$id)!;

const operationsUnderBothPrefixes = OPERATIONS.flatMap((operation) =>
  operation.paths.map((path, prefixIndex) => ({ operation, path, prefixIndex, item: openApiDocument.paths[path]?.[operation.method.toLowerCase()] })),
);

/** One request through node:http, which, unlike fetch, sends a body with any method. */
function rawRequest(method: string, url: string, token: string, body: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers: { authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(body) } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    // The gateway answers 413 and closes the connection before reading the whole body.
    outgoing.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    outgoing.end(body);
  });
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(openApiDocument));

    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(openApiDocument.openapi).toBe('3.1.0');
  });

  it('has every operation of the table under both prefixes, and nothing else', () => {
    const documented = Object.entries(openApiDocument.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
      ([path, item]) => Object.entries(item).map(([method, { operationId }]) => `${method.toUpperCase()} ${path} ${operationId}`),
    );
    const expected = operationsUnderBothPrefixes.map(({ operation, path, prefixIndex }) =>
      `${operation.method} ${path} ${documentOperationId(operation, prefixIndex)}`,
    );
    expect(documented.sort()).toEqual(expected.sort());
    expect(documented).toHaveLength(OPERATIONS.length * 2);
  });

  it.each(operationsUnderBothPrefixes.map((entry) => [entry.path, entry.operation.method, entry] as const))(
    '%s %s asks for its scope, takes its body as the validator does and lists its statuses',
    (_path, _method, { operation, item }) => {
      expect(item.security).toEqual([{ [SECURITY_SCHEME]: [operation.scope] }]);

      const body = REQUEST_BODIES[operation.id];
      if (body) {
        // The body's schema as written, by reference; the catalog it refers to is the configuration's.
        expect(item.requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${componentNameOf(body.schema)}` });
        expect(openApiDocument.components.schemas[componentNameOf(body.schema)]).toEqual(asComponent(body.schema));
        // Its example is a body the service accepts.
        expect(body.reader.read(item.requestBody.content['application/json'].example).problems).toBeUndefined();
      } else {
        expect(item.requestBody).toBeUndefined();
      }

      const statuses = Object.keys(item.responses);
      expect(statuses).toEqual(
        expect.arrayContaining(['200', '401', '403', '413', '500', '503', ...(operation.id === 'listSubscriptionsRoute' ? [] : ['400'])]),
      );
      const idempotent = operation.id === 'createSubscriptionRoute' || operation.id === 'replayDeadLettersRoute';
      expect(statuses.includes('409')).toBe(idempotent);
      const idempotencyKey = (item.parameters ?? []).find((parameter: { name: string }) => parameter.name === 'Idempotency-Key');
      expect(idempotencyKey?.in).toBe(idempotent ? 'header' : undefined);
      // The routes that make SNS send are limited per portal, with Retry-After.
      expect(statuses.includes('429')).toBe(operation.limitedPerPortal);
      if (operation.limitedPerPortal) expect(Object.keys(item.responses['429'].headers)).toEqual(['Retry-After']);
    },
  );

  it('documents the query of GET /dead-letters as the service reads it: config_id required, limit and cursor optional', () => {
    const operation = OPERATIONS.find((candidate) => candidate.id === 'listDeadLettersRoute')!;
    for (const path of operation.paths) {
      const parameters = openApiDocument.paths[path].get.parameters as { name: string; in: string; required: boolean; schema: object }[];
      expect(parameters.map(({ name, in: where, required }) => ({ name, where, required }))).toEqual([
        { name: 'config_id', where: 'query', required: true },
        { name: 'limit', where: 'query', required: false },
        { name: 'cursor', where: 'query', required: false },
      ]);
      expect(bodies.listDeadLettersQuery.read({ config_id: EXAMPLE_ID, limit: '100' }).problems).toBeUndefined();
      expect(bodies.listDeadLettersQuery.read({ config_id: EXAMPLE_ID, limit: '101' }).problems).toEqual([
        { field: 'limit', message: 'limit must be a whole number from 1 to 100.' },
      ]);
    }
  });

  it('describes the client-credentials token endpoint with both scopes', () => {
    expect(openApiDocument.components.securitySchemes[SECURITY_SCHEME]).toMatchObject({
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: expect.stringMatching(/\/v6\/authentication\/oauth2\/token$/), scopes: {
        'webhooks.config:read': expect.any(String),
        'webhooks.config:write': expect.any(String),
      } } },
    });
  });

  it('gives examples that match their own schemas', () => {
    for (const { operation, prefixIndex, item } of operationsUnderBothPrefixes) {
      for (const [status, response] of Object.entries(item.responses as Record<string, { content: Record<string, { example: unknown }> }>)) {
        const { example } = response.content['application/json']!;
        expect(example).toBeDefined();
        expect(undocumentedAnswer(operation, prefixIndex, Number(status), example)).toBeUndefined();
      }
    }
  });

  it('accepts in its request schemas exactly the bodies the service accepts, and refuses bodies of the wrong shape', () => {
    // ajv is CommonJS: under jest's native ESM its default export arrives as the module object.
    const Ajv2020 = ((Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module) as typeof Ajv2020Module;
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(openApiDocument, 'openapi.json');
    const schemaOf = (id: OperationId) => {
      const operation = OPERATIONS.find((candidate) => candidate.id === id)!;
      const { $ref } = openApiDocument.paths[operation.paths[0]!][operation.method.toLowerCase()].requestBody.content['application/json'].schema;
      return ajv.getSchema(`openapi.json${$ref}`)!;
    };
    // What the descriptions add in words: `protocol` in any letter case, and `config_id` and its
    // alias naming the same subscription when both are sent.
    const asDescribed = (documented: (body: unknown) => boolean, addressed: boolean) => (body: Record<string, unknown>) => {
      const { protocol, config_id, configId } = body;
      const aliasesAgree = !addressed || typeof config_id !== 'string' || typeof configId !== 'string' || config_id.toLowerCase() === configId.toLowerCase();
      return documented(typeof protocol === 'string' ? { ...body, protocol: protocol.toLowerCase() } : body) && aliasesAgree;
    };

    // Bodies near the rules' edges: ids in either case, names of any Unicode (lone surrogates and
    // control characters too) or with spaces around, any protocol's case, too many events.
    const anyId = fc.uuid().chain((uuid) => fc.constantFrom(uuid, uuid.toUpperCase()));
    const text = fc.oneof(
      { arbitrary: fc.constantFrom('Media updates', '  Media updates  ', 'x'.repeat(255), ` ${'y'.repeat(255)} `, 'é'.repeat(255)), weight: 3 },
      { arbitrary: fc.string({ unit: 'binary', maxLength: 300 }), weight: 1 },
      { arbitrary: fc.constantFrom('', '   ', 'x'.repeat(256)), weight: 1 },
    );
    const endpoint = fc.constantFrom('https://hooks.example.com/a', 'HTTP://x.example', 'me@example.com', 'arn:aws:sqs:us-east-1:123456789012:q', 'arn:aws:lambda:us-east-1:123456789012:function:f');
    const events = fc.array(fc.constantFrom(...eventKinds()), { minLength: 0, maxLength: 55 });
    const bodies = fc.record(
      {
        name: text,
        endpoint,
        protocol: fc.constantFrom('https', 'HTTP', 'email', 'sqs', 'Lambda', 'email-json', 'lambda', 'ftp'),
        events,
        config_id: anyId,
        configId: anyId,
        status: fc.constantFrom(0, 1, 2, '1'),
        other: fc.string(),
      },
      { requiredKeys: [] },
    );
    for (const [id, { reader, schema, optional = [] }] of Object.entries(REQUEST_BODIES) as [OperationId, NonNullable<(typeof REQUEST_BODIES)[OperationId]>][]) {
      const documented = schemaOf(id);
      const described = asDescribed((body) => documented(body) === true, 'config_id' in schema.properties);
      let accepted = 0;
      fc.assert(
        fc.property(bodies, (body) => {
          const serviceAccepts = reader.read(body).problems === undefined;
          if (serviceAccepts) accepted++;
          return serviceAccepts === described(body);
        }),
        { numRuns: 1000 },
      );
      // The property held for bodies the service accepted, not only for refused ones.
      expect({ id, acceptedEnough: accepted >= 30 }).toEqual({ id, acceptedEnough: true });

      // Starting from the operation's documented example (a body the service accepts), one field
      // missing or of the wrong type is refused by both.
      const operation = OPERATIONS.find((candidate) => candidate.id === id)!;
      const example = openApiDocument.paths[operation.paths[0]!][operation.method.toLowerCase()].requestBody.content['application/json'].example;
      for (const field of Object.keys(example)) {
        const { [field]: _removed, ...withoutIt } = example;
        const refused = !optional.includes(field);
        expect({ field, service: reader.read(withoutIt).problems !== undefined, document: documented(withoutIt) }).toEqual({ field, service: refused, document: !refused });
      }
      for (const field of Object.keys(schema.properties)) {
        const wrongType = { ...example, [field]: { not: 'this' } };
        expect({ field, service: reader.read(wrongType).problems !== undefined, document: documented(wrongType) }).toEqual({ field, service: true, document: false });
      }
    }
  });

  it('lists the event catalog of the configuration it is built for', () => {
    const custom = buildOpenApiDocument({ eventKinds: ['a.b', 'c.d'], tokenUrl: 'https://auth.example.test/t' });
    expect(custom.components.schemas.EventKind.enum).toEqual(['a.b', 'c.d']);
    // Every request's event list refers to it.
    for (const name of ['CreateSubscriptionRequest', 'UpdateSubscriptionRequest']) {
      expect(custom.components.schemas[name].properties.events.items).toEqual({ $ref: '#/components/schemas/EventKind' });
    }
    expect(JSON.stringify(custom).match(/#\/components\/schemas\/EventKind/g)).toHaveLength(2);
  });
});

describe('holding answers to the document', () => {
  const create = OPERATIONS.find((operation) => operation.id === 'createSubscriptionRoute')!;
  const rename = OPERATIONS.find((operation) => operation.id === 'renameSubscriptionRoute')!;
  const example = openApiDocument.paths[create.paths[0]!].post.responses['200'].content['application/json'].example;

  it('accepts an answer the document describes', () => {
    expect(undocumentedAnswer(create, 0, 200, example)).toBeUndefined();
  });

  it('refuses a field the document lacks', () => {
    const found = undocumentedAnswer(create, 0, 200, { ...example, record: { ...example.record, secret: 'x' } });
    expect(found?.problem).toMatch(/must NOT have additional properties/);
  });

  it('refuses a missing field', () => {
    const { confirmed: _confirmed, ...record } = example.record;
    expect(undocumentedAnswer(create, 1, 200, { ...example, record })?.problem).toMatch(/must have required property 'confirmed'/);
  });

  it('refuses a status the document does not list for the operation', () => {
    expect(undocumentedAnswer(rename, 0, 409, { success: false, message: 'x', code: 'X' })?.problem).toMatch(/lists only 200, 400, 401/);
    expect(undocumentedAnswer(rename, 0, 502, { message: 'Bad Gateway' })).toBeDefined();
  });

  it('accepts the `errors` array of a validation answer, and nothing else in it', () => {
    const answer = { success: false, message: 'name must not be empty.', code: 'INVALID_REQUEST', errors: [{ field: 'name', message: 'name must not be empty.' }] };
    expect(undocumentedAnswer(rename, 0, 400, answer)).toBeUndefined();
    expect(undocumentedAnswer(rename, 0, 400, { ...answer, errors: [{ field: 'name', message: 'x', hint: 'y' }] })).toBeDefined();
  });
});

describe('npm run openapi', () => {
  it('writes the document for the configuration of its environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      const out = join(dir, 'openapi.json');
      const printed = execFileSync('node_modules/.bin/tsx', ['shared/contract/write-openapi-document.ts', '--out', out, '--issuer', 'https://auth.example.test/'], {
        encoding: 'utf8',
        env: { ...process.env, EVENT_KINDS: 'asset_bank.media.create,workflow.job.create' },
      });

      expect(printed).toContain('OpenAPI document written to');
      const written = JSON.parse(readFileSync(out, 'utf8'));
      expect(written).toEqual(
        buildOpenApiDocument({
          eventKinds: ['asset_bank.media.create', 'workflow.job.create'],
          tokenUrl: 'https://auth.example.test/v6/authentication/oauth2/token',
          serverUrl: 'https://auth.example.test',
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('cdk synth', () => {
  it('writes the document of the stack\'s settings beside the template', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-openapi-'));
    try {
      // What `cdk synth -c jwtIssuer=... -c jwtAudience=... -c eventKinds=...` runs.
      execFileSync('node_modules/.bin/tsx', ['infra/aws/app.ts'], {
        encoding: 'utf8',
        // Its "Bundling asset" lines kept from the suite's output; a failure's error carries them.
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          CDK_OUTDIR: outdir,
          CDK_CONTEXT_JSON: JSON.stringify({
            jwtIssuer: 'https://auth.example.test/',
            jwtAudience: 'webhooks-api',
            eventKinds: 'antivirus.scan.failed,workflow.job.create',
          }),
        },
      });

      expect(JSON.parse(readFileSync(join(outdir, STACK_DOCUMENT_FILE), 'utf8'))).toEqual(
        buildOpenApiDocument({
          eventKinds: ['antivirus.scan.failed', 'workflow.job.create'],
          tokenUrl: 'https://auth.example.test/v6/authentication/oauth2/token',
        }),
      );
      expect(readFileSync(join(outdir, 'WebhookSubscriptions.template.json'), 'utf8')).toContain('AWS::ApiGatewayV2::Route');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('the local stack', () => {
  let local: TestStack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    local = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await local?.stop();
    await receiver?.close();
  });

  it('serves the document at GET /openapi.json, with its own token endpoint and base URL', async () => {
    const response = await fetch(local.stack.openApiUrl);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(
      buildOpenApiDocument({ eventKinds: eventKinds(), tokenUrl: local.stack.tokenUrl, serverUrl: local.stack.apiUrl }),
    );
  });

  it('serves the admin page, its modules and the receiving page it links to from the repository, and nothing else under /admin/ or /docs/', async () => {
    const page = await fetch(local.stack.adminUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="app.js"></script>');
    // It links integrators to the page on the receiving side, in a tab of its own (the admin tab
    // stays signed in), which the same server serves rendered from docs/, with the page's headers.
    const link = /<a href="([^"]+)" target="_blank" rel="noopener">docs\/receiving\.md<\/a>/.exec(html)?.[1];
    expect(link).toBeDefined();
    const receiving = await fetch(new URL(link!, local.stack.adminUrl));
    expect(receiving.status).toBe(200);
    expect(receiving.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(receiving.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(receiving.headers.get('x-content-type-options')).toBe('nosniff');
    const firstHeading = /^# (.+)$/m.exec(readFileSync(fileURLToPath(new URL('../../docs/receiving.md', import.meta.url)), 'utf8'))![1]!;
    expect(await receiving.text()).toContain(`>${firstHeading}</h1>`);
    // Only the repository's markdown pages: no other file of docs/ or of the repository.
    expect((await fetch(new URL('../docs/admin-page.png', local.stack.adminUrl))).status).toBe(404);
    expect((await fetch(new URL('../docs/no-such-page.md', local.stack.adminUrl))).status).toBe(404);
    const script = await fetch(`${local.stack.adminUrl}app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain("from './api-client.js'");
    // Every module the page imports, however app.js is split, is served as JavaScript, with the page's headers.
    const served = new Set<string>();
    const toLoad = ['app.js'];
    for (let module = toLoad.shift(); module !== undefined && served.size < 50; module = toLoad.shift()) {
      if (served.has(module)) continue;
      served.add(module);
      const answer = await fetch(`${local.stack.adminUrl}${module}`);
      expect({ module, status: answer.status, type: answer.headers.get('content-type') }).toEqual({ module, status: 200, type: 'text/javascript; charset=utf-8' });
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
      toLoad.push(...[...(await answer.text()).matchAll(/from '\.\/([a-z0-9-]+\.js)'/g)].map((match) => match[1]!));
    }
    expect([...served].sort()).toEqual(readdirSync(fileURLToPath(new URL('../../admin/', import.meta.url))).filter((name) => name.endsWith('.js')).sort());
    expect((await fetch(`${local.stack.adminUrl}../package.json`)).status).toBe(404);
    expect((await fetch(`${local.stack.apiUrl}/admin/oauth-clients.json`)).status).toBe(404);
  });

  it('gives each operation the statuses the document lists for it, with documented bodies', async () => {
    const { stack } = local;
    const [prefix, legacy] = stack.apiBaseUrls.map((url) => url.slice(stack.apiUrl.length)) as [string, string];
    const admin = await tokenFor(stack, TEST_CLIENTS.alphaAdmin);
    const reader = await tokenFor(stack, TEST_CLIENTS.alphaReader);
    const writer = await tokenFor(stack, TEST_CLIENTS.alphaAdmin, 'webhooks.config:write');
    const noPortal = await forgeToken(stack, local.signingKey, TEST_CLIENTS.alphaAdmin, { portal_id: undefined });
    // Every answer goes through the document check of support/local-stack-client.ts; this
    // records which operation answered which status, to show none was left out.
    const seen = new Set<string>();
    const request = async (method: string, path: string, options: Parameters<typeof call>[3], expected: number) => {
      const answer = await call(stack, method, path, options);
      expect(answer.status).toBe(expected);
      const operation = OPERATIONS.find((candidate) => candidate.method === method && candidate.paths.some((p) => new RegExp(`^${p.replace('{configId}', '[^/]+')}$`).test(path.split('?')[0]!)));
      seen.add(`${operation!.id} ${answer.status}`);
      return answer;
    };

    for (const base of [prefix, legacy]) {
      const created = await request('POST', base, { token: admin, body: newSubscription(), headers: { 'idempotency-key': `k-${base}` } }, 200);
      const config_id = created.body.record.configId as string;
      // One whose endpoint confirms: a test event and a replay are answered 200 only then.
      const endpoint = `${receiver.url}/statuses${base}`;
      const confirmedOne = await call(stack, 'POST', base, { token: admin, body: newSubscription({ protocol: 'http', endpoint }) });
      const confirmedId = confirmedOne.body.record.configId as string;
      await waitFor('the endpoint to confirm', async () => {
        const list = await call(stack, 'GET', `${base}/list`, { token: admin });
        return list.body.configs.find((entry: { configId: string }) => entry.configId === confirmedId)?.confirmed || undefined;
      });
      const bodies = {
        create: [base, newSubscription()],
        update: [base, { config_id, events: ['workflow.job.create'] }],
        activate: [`${base}/activate`, { config_id, status: 0 }],
        rename: [`${base}/rename`, { config_id, name: 'Renamed' }],
        test: [`${base}/test`, { config_id: confirmedId }],
        // The https endpoint never confirms: it stays pending, so it can be asked again.
        confirm: [`${base}/confirm`, { config_id }],
      } as const;
      const methods = { create: 'POST', update: 'PUT', activate: 'PUT', rename: 'PUT', test: 'POST', confirm: 'POST' } as const;
      for (const [name, [path, body]] of Object.entries(bodies) as [keyof typeof bodies, (typeof bodies)[keyof typeof bodies]][]) {
        const method = methods[name];
        // Create's confirmation request went out just now: confirm sends another only 5 minutes on.
        if (name === 'confirm') await lastConfirmationRequestsMinutesAgo(stack, TEST_CLIENTS.alphaAdmin.portalId, 6);
        if (name !== 'create') await request(method, path, { token: admin, body }, 200);
        if (name === 'confirm') await request(method, path, { token: admin, body }, 429);
        await request(method, path, { token: admin, body: { ...body, name: '', config_id: 'not-a-uuid', events: [], status: 7 } }, 400);
        await request(method, path, { body }, 401);
        await request(method, path, { token: noPortal, body }, 401);
        await request(method, path, { token: reader, body }, 403);
        await request(method, path, { token: admin, body: 'x'.repeat(10 * 1024 * 1024 + 1) }, 413);
      }
      const deadLetters = `${base}/dead-letters?config_id=${config_id}`;
      await request('GET', deadLetters, { token: admin }, 200);
      await request('GET', `${deadLetters}&limit=0`, { token: admin }, 400);
      await request('GET', deadLetters, {}, 401);
      await request('GET', deadLetters, { token: noPortal }, 401);
      await request('GET', deadLetters, { token: writer }, 403);
      const tooLargeRead = await rawRequest('GET', `${stack.apiUrl}${deadLetters}`, admin, 'x'.repeat(10 * 1024 * 1024 + 1));
      expect(tooLargeRead.status).toBe(413);
      await expectDocumentedHttpAnswer('GET', `${base}/dead-letters`, tooLargeRead.status, tooLargeRead.body);
      seen.add(`listDeadLettersRoute ${tooLargeRead.status}`);
      // The http subscription: an e-mail one has no attempts (400 ATTEMPTS_NOT_RECORDED).
      const attempts = `${base}/attempts?config_id=${confirmedId}`;
      await request('GET', attempts, { token: admin }, 200);
      await request('GET', `${attempts}&status=unknown`, { token: admin }, 400);
      await request('GET', attempts, {}, 401);
      await request('GET', attempts, { token: noPortal }, 401);
      await request('GET', attempts, { token: writer }, 403);
      const tooLargeAttempts = await rawRequest('GET', `${stack.apiUrl}${attempts}`, admin, 'x'.repeat(10 * 1024 * 1024 + 1));
      expect(tooLargeAttempts.status).toBe(413);
      await expectDocumentedHttpAnswer('GET', `${base}/attempts`, tooLargeAttempts.status, tooLargeAttempts.body);
      seen.add(`listAttemptsRoute ${tooLargeAttempts.status}`);
      const replay = [`${base}/replay`, { config_id: confirmedId }] as const;
      await request('POST', replay[0], { token: admin, body: replay[1] }, 200);
      await request('POST', replay[0], { token: admin, body: { config_id: confirmedId, eventIds: [] } }, 400);
      await request('POST', replay[0], { body: replay[1] }, 401);
      await request('POST', replay[0], { token: noPortal, body: replay[1] }, 401);
      await request('POST', replay[0], { token: reader, body: replay[1] }, 403);
      await request('POST', replay[0], { token: admin, body: 'x'.repeat(10 * 1024 * 1024 + 1) }, 413);
      await request('GET', `${base}/list`, { token: admin }, 200);
      await request('GET', `${base}/list`, {}, 401);
      await request('GET', `${base}/list`, { token: noPortal }, 401);
      await request('GET', `${base}/list`, { token: writer }, 403);
      // fetch sends no body with a GET; node:http does, as curl -X GET -d would.
      const tooLarge = await rawRequest('GET', `${stack.apiUrl}${base}/list`, admin, 'x'.repeat(10 * 1024 * 1024 + 1));
      expect(tooLarge.status).toBe(413);
      await expectDocumentedHttpAnswer('GET', `${base}/list`, tooLarge.status, tooLarge.body);
      seen.add(`listSubscriptionsRoute ${tooLarge.status}`);
      await request('DELETE', `${base}/not-a-uuid`, { token: admin }, 400);
      await request('DELETE', `${base}/${config_id}`, {}, 401);
      await request('DELETE', `${base}/${config_id}`, { token: noPortal }, 401);
      await request('DELETE', `${base}/${config_id}`, { token: reader }, 403);
      await request('DELETE', `${base}/${config_id}`, { token: admin, body: 'x'.repeat(10 * 1024 * 1024 + 1) }, 413);
      await request('DELETE', `${base}/${config_id}`, { token: admin }, 200);
      await request('DELETE', `${base}/${confirmedId}`, { token: admin }, 200);
    }

    // 409 needs a create still running (test/service/idempotency.test.ts), 500 and 503 a failing
    // dependency (test/service/outages.test.ts), 429 a portal past its limit (test/service/rate-limits.test.ts;
    // confirm's is seen here): those suites' answers go through the same check.
    const notOnDemand = new Set(['409', '500', '503', '429']);
    const listed = OPERATIONS.flatMap((operation) =>
      Object.keys(openApiDocument.paths[operation.paths[0]!][operation.method.toLowerCase()].responses)
        .filter((status) => !notOnDemand.has(status) || (status === '429' && operation.id === 'confirmSubscriptionRoute'))
        .map((status) => `${operation.id} ${status}`),
    );
    expect([...seen].sort()).toEqual(listed.sort());
  }, 120_000);
});
