/**
 * What the local-stack suites share: a stack in memory on free ports with test clients and a
 * signing key the suite holds (so it can forge tokens the gateway must refuse), and an HTTP
 * client that talks to it as curl would.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type JWTPayload, SignJWT } from 'jose';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, type LocalStack, type LocalStackOptions, startLocalStack } from '../../infra/local/stack/local-stack';
import { trustAuthorityOf } from './local-authority';
import type { OAuthClient } from '../../infra/local/auth/clients';
import { generateSigningKey, type SigningKey } from '../../infra/local/auth/signing-key';
import { SCOPES } from '../../shared/operations';
import { SUBSCRIPTION_KEY_PREFIX } from '../../shared/data/table';
import { expectDocumentedHttpAnswer } from './openapi-responses';
import { SHARED_DYNAMODB_VARIABLE } from './test-env';

/** Two portals; alpha has an admin and a read-only client. */
export const TEST_CLIENTS = {
  alphaAdmin: {
    clientId: 'alpha-admin',
    clientSecret: 'alpha-admin-secret',
    portalId: 'portal-alpha',
    scopes: [SCOPES.read, SCOPES.write],
  },
  alphaReader: { clientId: 'alpha-reader', clientSecret: 'alpha-reader-secret', portalId: 'portal-alpha', scopes: [SCOPES.read] },
  betaAdmin: {
    clientId: 'beta-admin',
    clientSecret: 'beta-admin-secret',
    portalId: 'portal-beta',
    scopes: [SCOPES.read, SCOPES.write],
  },
} satisfies Record<string, OAuthClient>;

export interface TestStack {
  readonly stack: LocalStack;
  /** The key the stack signs and verifies tokens with. */
  readonly signingKey: SigningKey;
  /** A directory of the suite's own, removed by stop(). */
  readonly workDir: string;
  stop(): Promise<void>;
}

/**
 * The DynamoDB Local global setup started (test-env.ts), which the suites' in-memory stacks
 * share, each in the suite's own table (TABLE_NAME, suite-table.ts), deleted when the stack
 * stops: a Java process started per suite cost seconds of CPU each. Undefined outside jest (the
 * bench's end-to-end run), where a stack starts its own.
 */
function sharedDynamoDb(): { endpoint: string; port: number } | undefined {
  const endpoint = process.env[SHARED_DYNAMODB_VARIABLE];
  return endpoint ? { endpoint, port: Number(new URL(endpoint).port) } : undefined;
}

/**
 * The handlers read TABLE_NAME when shared/environment is first imported: a suite that imported
 * it before starting its stack would have them write to another table than the stack's.
 */
async function expectHandlersOnTable(stack: LocalStack): Promise<void> {
  const { config } = await import('../../shared/environment');
  if (config.tableName !== stack.tableName) {
    await stack.stop();
    throw new Error(`The handlers use table ${config.tableName}, the stack ${stack.tableName}: the suite imported shared/environment before it started its stack.`);
  }
}

/**
 * The one way a suite starts the local stack in its own process: in memory, every port a free
 * one (never a default: `npm start` may run beside `npm test`), with TEST_CLIENTS; `overrides`
 * may ask for more, but not for ports.
 */
export async function startTestStack(
  overrides: Partial<Omit<LocalStackOptions, 'port' | 'dynamoDbPort' | 'snsPort' | 'eventsPort'>> = {},
): Promise<TestStack> {
  const workDir = mkdtempSync(join(tmpdir(), 'local-stack-'));
  const clientsFile = join(workDir, 'oauth-clients.json');
  writeFileSync(clientsFile, JSON.stringify(Object.values(TEST_CLIENTS)));
  const signingKey = overrides.signingKey ?? (await generateSigningKey());
  const inMemory = overrides.inMemory ?? !overrides.dataDir;
  const shared = inMemory ? sharedDynamoDb() : undefined;
  try {
    const stack = await startLocalStack({
      port: 0,
      dynamoDbPort: 0,
      snsPort: 0,
      eventsPort: 0,
      inMemory,
      clientsFile,
      signingKey,
      sharedDynamoDb: shared,
      ...overrides,
    });
    trustAuthorityOf(stack.sns);
    await expectHandlersOnTable(stack);
    return {
      stack,
      signingKey,
      workDir,
      stop: async () => {
        await stack.stop();
        rmSync(workDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
}

export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary fields
  body: any;
  text: string;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** POSTs form fields to the token endpoint, as `curl -d` does. */
export async function requestToken(
  stack: LocalStack,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(stack.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  return answerOf(response);
}

/** An access token from the token endpoint for the client (client_secret_post). */
export async function tokenFor(stack: LocalStack, client: OAuthClient, scope?: string): Promise<string> {
  const answer = await requestToken(stack, {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    ...(scope ? { scope } : {}),
  });
  if (answer.status !== 200) throw new Error(`token request failed: ${answer.status} ${answer.text}`);
  return answer.body.access_token as string;
}

export interface CallOptions {
  token?: string;
  /** JSON-encoded unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** One HTTP request to the stack's API, e.g. `call(stack, 'PUT', prefix + '/rename', {...})`. */
export async function call(stack: LocalStack, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const response = await fetch(stack.apiUrl + path, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  const answer = await answerOf(response);
  // Every answer of an operation a suite sees must be one the OpenAPI document describes.
  await expectDocumentedHttpAnswer(method, path, answer.status, answer.body, answer.headers);
  return answer;
}

/**
 * A token signed with `key` carrying what the stack's token endpoint would put in one for
 * `client`, with `overrides` applied (a claim set to undefined is left out).
 */
export async function forgeToken(
  stack: LocalStack,
  key: SigningKey,
  client: OAuthClient,
  overrides: JWTPayload = {},
  header: { kid?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: JWTPayload = {
    iss: stack.issuer,
    aud: stack.audience,
    sub: client.clientId,
    client_id: client.clientId,
    portal_id: client.portalId,
    scope: client.scopes.join(' '),
    iat: now,
    exp: now + 600,
    ...overrides,
  };
  const defined = Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
  return new SignJWT(defined).setProtectedHeader({ alg: 'RS256', kid: header.kid ?? key.kid }).sign(key.privateKey);
}

/** A valid create body: e-mail delivery, so no test depends on reaching an outside host. */
export function newSubscription(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Media updates',
    endpoint: 'ops@example.com',
    protocol: 'email',
    events: ['asset_bank.media.create', 'asset_bank.media.updated'],
    ...overrides,
  };
}

/** `npm run reconcile` against this stack (what an operator runs locally); answers its summary. */
export async function reconcileLocally(stack: TestStack['stack']): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(join(process.cwd(), 'node_modules/.bin/tsx'), ['infra/local/reconcile.ts'], {
    cwd: process.cwd(),
    env: {
      PATH: `${join(process.cwd(), 'node_modules/.bin')}:${process.env.PATH}`,
      AWS_ENDPOINT_URL_DYNAMODB: stack.dynamoDb.endpoint,
      AWS_ENDPOINT_URL_SNS: stack.sns.endpoint,
      TABLE_NAME: stack.tableName,
      TOPIC_PREFIX: process.env.TOPIC_PREFIX,
    },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/**
 * As if the last confirmation request of each of the portal's subscriptions went out `minutes`
 * ago: POST /confirm sends no new one within 5 minutes of it (shared/subscriptions/confirmation-requests.ts).
 */
export async function lastConfirmationRequestsMinutesAgo(stack: TestStack['stack'], portalId: string, minutes: number): Promise<void> {
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: stack.dynamoDb.endpoint, region: stack.region, credentials: LOCAL_CREDENTIALS }));
  try {
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':portalId': portalId, ':prefix': SUBSCRIPTION_KEY_PREFIX },
      }),
    );
    const at = new Date(Date.now() - minutes * 60_000).toISOString();
    for (const { sk } of Items) {
      await db.send(
        new UpdateCommand({
          TableName: stack.tableName,
          Key: { portalId, sk },
          UpdateExpression: 'SET createdAt = :at, confirmationRequestedAt = :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    }
  } finally {
    db.destroy();
  }
}
