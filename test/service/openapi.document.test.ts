/**
 * The OpenAPI document: valid OpenAPI 3.1 (linted by @seriousme/openapi-schema-validator), built
 * from the operations table and the request schemas themselves, and written by `npm run openapi`
 * and `cdk synth`; and the check every suite's answers go through (support/openapi-responses.ts)
 * refuses what the document does not describe. The document as the local stack serves it, and
 * each operation's every status held to it: openapi.local-stack.test.ts.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { BodyReader } from '../../shared/contract/body-reader';
import { buildOpenApiDocument, documentOperationId, SECURITY_SCHEME } from '../../shared/contract/openapi-document';
import { presentedRequest } from '../../shared/contract/openapi-presentation';
import * as bodies from '../../shared/contract/request-bodies';
import * as schemas from '../../shared/contract/schemas';
import { STACK_DOCUMENT_FILE } from '../../infra/aws/stack-openapi-document';
import { config } from '../../shared/environment';
import { filterPolicyProblem } from '../../shared/filters/filter-policy';
import { OPERATIONS, type OperationId } from '../../shared/operations';
import { documentedAnswersOf } from '../support/openapi-responses';

/** Each body's schema as written (shared/contract/schemas.ts), and the reader its function runs. */
/** A body's `filter`, when it is an object, as the descriptions say in words: SNS's filter-policy language within its limits. */
const filterAsDescribed = (body: Record<string, unknown>) =>
  typeof body.filter !== 'object' || body.filter === null || Array.isArray(body.filter) || filterPolicyProblem(body.filter) === undefined;

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
  resendMessageRoute: { schema: schemas.resendMessageRequest, reader: bodies.resendMessageRequest },
  recoverMessagesRoute: { schema: schemas.recoverMessagesRequest, reader: bodies.recoverMessagesRequest, optional: ['until', 'status'] },
  testFilterRoute: { schema: schemas.testFilterRequest, reader: bodies.testFilterRequest },
};

// The suites' document and checker, as every suite's answers are held to it.
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
        // The body's schema as written, presented to client generators (openapi-presentation.ts),
        // by reference; the catalog it refers to is the configuration's.
        expect(item.requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${componentNameOf(body.schema)}` });
        expect(openApiDocument.components.schemas[componentNameOf(body.schema)]).toEqual(presentedRequest(asComponent(body.schema)));
        // Its example is a body the service accepts.
        expect(body.reader.read(item.requestBody.content['application/json'].example).problems).toBeUndefined();
      } else {
        expect(item.requestBody).toBeUndefined();
      }

      const statuses = Object.keys(item.responses);
      expect(statuses).toEqual(
        expect.arrayContaining([operation.id === 'recoverMessagesRoute' ? '202' : '200', '401', '403', '413', '500', '503', ...(operation.id === 'listSubscriptionsRoute' ? [] : ['400'])]),
      );
      const idempotent = operation.id === 'createSubscriptionRoute' || operation.id === 'replayDeadLettersRoute' || operation.id === 'recoverMessagesRoute';
      expect(statuses.includes('409')).toBe(idempotent);
      const idempotencyKey = (item.parameters ?? []).find((parameter: { name: string }) => parameter.name === 'Idempotency-Key');
      expect(idempotencyKey?.in).toBe(idempotent ? 'header' : undefined);
      // Every route may meet API Gateway's stage throttle; the routes that make SNS send are also
      // limited per portal. Either way with a required Retry-After, as 503 has.
      expect(statuses).toEqual(expect.arrayContaining(['429', '431']));
      for (const status of ['429', '503']) expect(item.responses[status].headers['Retry-After']).toEqual(expect.objectContaining({ required: true }));
      // Every answer declares the RateLimit-* headers the service sends once the portal's bucket
      // was consulted: required on a limited route's success (all of them consult it), optional on the
      // others (API Gateway's own answers, and refusals before the bucket, carry none).
      const limited = operation.limitedPerPortal || operation.portalBudget !== undefined;
      for (const [status, response] of Object.entries(item.responses as Record<string, { headers: Record<string, unknown> }>)) {
        const always = limited && status.startsWith('2');
        for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
          expect([status, response.headers[name]]).toEqual([status, always ? expect.objectContaining({ required: true, schema: expect.objectContaining({ type: 'integer' }) }) : { $ref: `#/components/headers/${name}` }]);
        }
      }
    },
  );

  it('declares the RateLimit-* header components optional, saying which answers carry none', () => {
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
      const header = openApiDocument.components.headers[name];
      expect(header).toEqual(expect.objectContaining({ required: false, schema: expect.objectContaining({ type: 'integer' }) }));
      expect(header.description).toContain('draft-ietf-httpapi-ratelimit-headers-06');
      expect(header.description).toMatch(/Absent from API Gateway's own answers \(401, 403, 413, its stage throttle's 429/);
    }
  });

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
    // What the descriptions add in words: `protocol` in any letter case, `configId`, an alias
    // of `config_id`, naming the same subscription when both are sent, and a `filter` in SNS's
    // filter-policy language within its limits.
    const asDescribed = (documented: (body: unknown) => boolean, addressed: boolean, filtered: boolean, windowed = false) => (body: Record<string, unknown>) => {
      const { protocol, config_id, configId } = body;
      const aliasesAgree =
        !addressed || configId === undefined || (typeof config_id === 'string' && typeof configId === 'string' && config_id.toLowerCase() === configId.toLowerCase());
      // A recovery's window in order (docs/messages.md: since after until is 400), which a schema cannot say.
      const { since, until } = body;
      const windowInOrder = !windowed || typeof since !== 'string' || typeof until !== 'string' || Date.parse(since) <= Date.parse(until);
      return documented(typeof protocol === 'string' ? { ...body, protocol: protocol.toLowerCase() } : body) && aliasesAgree && windowInOrder && (!filtered || filterAsDescribed(body));
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
    const events = fc.array(fc.constantFrom(...config.eventKinds), { minLength: 0, maxLength: 55 });
    const bodies = fc.record(
      {
        name: text,
        endpoint,
        protocol: fc.constantFrom('https', 'HTTP', 'email', 'sqs', 'Lambda', 'email-json', 'lambda', 'ftp'),
        events,
        config_id: anyId,
        configId: anyId,
        status: fc.constantFrom(0, 1, 2, '1', 'failed', 'all'),
        // A recovery's window (recover): times with an offset or not, in order or not.
        since: fc.constantFrom<unknown>('2026-11-24T09:00:00Z', '2026-11-24T09:30:00.5+01:00', '2026-11-24T06:00Z', '2026-11-23T23:00:00-02:00', 'yesterday', 7),
        until: fc.constantFrom<unknown>('2026-11-24T18:00:00Z', '2026-11-24T19:00:00+01:00', '2026-11-24T08:00:00Z', '2026-11-24'),
        // A filter in SNS's language or not, an event's data or not (test-filter, create, update).
        filter: fc.oneof(
          { arbitrary: fc.constantFrom<unknown>({ brand: ['acme'] }, { size: [{ numeric: ['>', 1000] }] }), weight: 6 },
          { arbitrary: fc.constantFrom<unknown>(null, { brand: 'acme' }, { brand: [{ regex: 'a' }] }, 'x'), weight: 1 },
        ),
        data: fc.constantFrom<unknown>({ brand: 'acme' }, {}, 'x', [1]),
        // An event id or not (resend).
        event_id: fc.constantFrom<unknown>('6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c', 'e-1', 'x'.repeat(256), '', 'x'.repeat(257), 7),
        other: fc.string(),
      },
      { requiredKeys: [] },
    );
    for (const [id, { reader, schema, optional = [] }] of Object.entries(REQUEST_BODIES) as [OperationId, NonNullable<(typeof REQUEST_BODIES)[OperationId]>][]) {
      const documented = schemaOf(id);
      const described = asDescribed((body) => documented(body) === true, 'config_id' in schema.properties, 'filter' in schema.properties, 'since' in schema.properties);
      let accepted = 0;
      fc.assert(
        fc.property(bodies, (body) => {
          const serviceAccepts = reader.read(body).problems === undefined;
          if (serviceAccepts) accepted++;
          // The document requires `config_id`: a body naming its subscription by the alias alone
          // is one the service accepts and the document does not show.
          if ('config_id' in schema.properties && !('config_id' in body)) return !described(body);
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
      // `configId` is in the document's prose only (the alias), not among its properties.
      for (const field of Object.keys(schema.properties).filter((name) => name !== 'configId')) {
        // An event's data is any object: a string is its wrong type.
        const wrongType = { ...example, [field]: field === 'data' ? 'not an object' : { not: 'this' } };
        // A filter's language is said in words (an object of another shape is one the schema takes).
        const byDocument = field === 'filter' ? described(wrongType) : documented(wrongType);
        expect({ field, service: reader.read(wrongType).problems !== undefined, document: byDocument }).toEqual({ field, service: true, document: false });
      }
    }
  });

  it('lists the event catalog of the configuration it is built for', () => {
    const custom = buildOpenApiDocument({ eventKinds: ['a.b', 'c.d'], tokenUrl: 'https://auth.example.test/t' });
    expect(custom.components.schemas.EventKind.enum).toEqual(['a.b', 'c.d']);
    // Every request's event list refers to it.
    const { CreateSubscriptionRequest: create, UpdateSubscriptionRequest: update } = custom.components.schemas;
    // Update is presented as any of three bodies (events required in one, the throttle in another, the filter in the third).
    for (const schema of [create, ...update.anyOf]) expect(schema.properties.events.items).toEqual({ $ref: '#/components/schemas/EventKind' });
    expect(JSON.stringify(custom).match(/#\/components\/schemas\/EventKind/g)).toHaveLength(4);
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
            // No function bundled: the document and the template are what this checks, and
            // bundling every function is most of a synth's time (the bundles: test/infra/stack.bundles.test.ts).
            'aws:cdk:bundling-stacks': [],
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
