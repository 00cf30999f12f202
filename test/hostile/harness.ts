/**
 * The local stack as the hostile-input suite uses it: one portal per operation (and the shipped
 * portal-a as a bystander), a raw HTTP client that sends request-targets and bodies exactly as
 * given, and snapshots of everything the service could change: every item of the table and
 * every topic and SNS subscription of the emulator, read through the real AWS SDK clients.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  GetTopicAttributesCommand,
  ListSubscriptionsCommand,
  ListTagsForResourceCommand,
  ListTopicsCommand,
  SNSClient,
} from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, NumberValue, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_CREDENTIALS, type LocalStack } from '../../infra/local/stack/local-stack';
import { DEFAULT_CLIENTS_FILE, type OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES, SCOPES } from '../../shared/operations';
import { RATE_LIMIT_KEY_PREFIX } from '../../shared/subscriptions/table';
import { startTestStack, type TestStack } from '../support/local-stack-client';
import type { OperationName } from './requests';

export const OPERATION_NAMES: readonly OperationName[] = ['create', 'update', 'activate', 'list', 'rename', 'delete'];

/** The shipped admin client of portal-a: its subscriptions must survive everything. */
export const BYSTANDER_CLIENT = 'portal-a-admin';

export const portalOf = (operation: OperationName) => `hostile-${operation}`;
const clientOf = (operation: OperationName) => `hostile-${operation}-admin`;

export interface RawRequest {
  readonly method: string;
  /** The request-target exactly as sent (no normalization of `..`, `%2F`, ...). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** Send the body with chunked transfer encoding, without content-length. */
  readonly chunked?: boolean;
  /**
   * The gateway should answer from the headers alone (404, 413): hold the body back until the
   * answer comes, as a client waiting for 100-continue would, or for at most a second.
   */
  readonly expectEarlyAnswer?: boolean;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: unknown;
}

/** State the service may change, in a canonical form: numbers exact, keys sorted. */
export interface Snapshot {
  /** `<portalId> <sk>` → the item as canonical JSON. */
  readonly items: Readonly<Record<string, string>>;
  /** Topic ARNs, sorted. */
  readonly topics: readonly string[];
  /** Each SNS subscription as canonical JSON, sorted. */
  readonly subscriptions: readonly string[];
}

export const itemKey = (portalId: string, sk: string) => `${portalId} ${sk}`;
export const subscriptionSk = (configId: string) => `subscription#${configId}`;

/** A number as the canonical form holds it. */
export const numberAttribute = (value: number | string) => ({ $N: String(value) });

/** Sorted keys; NumberValue → {$N}; sets and binaries spelled out. */
export function canonical(value: unknown): unknown {
  if (value instanceof NumberValue) return numberAttribute(value.value);
  if (value instanceof Set) return { $Set: [...value].map(canonical).map((entry) => JSON.stringify(entry)).sort() };
  if (value instanceof Uint8Array) return { $B: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export interface HostileHarness {
  readonly stack: LocalStack;
  token(operation: OperationName | 'bystander'): string;
  send(request: RawRequest): Promise<RawAnswer>;
  /** A plain JSON call, for seeding and cleaning up. */
  api(operation: OperationName | 'bystander', method: string, subPath: string, body?: unknown): Promise<RawAnswer>;
  snapshot(): Promise<Snapshot>;
  /** How many big uploads had to be sent again because the connection was reset before the answer was read. */
  uploadRetries(): number;
  /** How many calls of `api` (seeding, clean-up) were sent again after an overload answer. */
  apiOverloadRetries(): number;
  /** How many requests were sent again because the kept-alive connection they went out on was already closed. */
  staleConnectionRetries(): number;
  /** Attributes and tags of the given topics (slower; for the start and end of a property). */
  topicDetails(topicArns: readonly string[]): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Attempts of one seeding or clean-up call while the service answers overload. */
const API_ATTEMPTS_WHILE_OVERLOADED = 4;
/** The longest wait before a retry, whatever Retry-After says (the service says 2 s). */
const MAX_RETRY_WAIT_MS = 5_000;

/**
 * The service's answer to overload (docs/api.md, "When DynamoDB or SNS is down, slow or failing"): 503 and exactly
 * `{success: false, message, code: "SERVICE_UNAVAILABLE"}` as JSON, with Retry-After in seconds.
 */
export function isOverloadAnswer(answer: RawAnswer): boolean {
  const body = answer.json as Record<string, unknown> | undefined;
  return (
    answer.status === 503 &&
    /^application\/json\s*(;|$)/i.test(String(answer.headers['content-type'] ?? '')) &&
    typeof body === 'object' &&
    body !== null &&
    Object.keys(body).sort().join(',') === 'code,message,success' &&
    body.success === false &&
    body.code === 'SERVICE_UNAVAILABLE' &&
    typeof body.message === 'string' &&
    /^\d+$/.test(String(answer.headers['retry-after'] ?? ''))
  );
}

/** How long an overload answer asks to wait before a retry, at most MAX_RETRY_WAIT_MS. */
export function retryAfterMs(answer: RawAnswer): number {
  return Math.min(Number(answer.headers['retry-after'] ?? 0) * 1_000, MAX_RETRY_WAIT_MS);
}

export async function startHostileHarness(): Promise<HostileHarness> {
  const workDir = mkdtempSync(join(tmpdir(), 'hostile-input-'));
  const clientsFile = join(workDir, 'oauth-clients.json');
  const shipped = JSON.parse(readFileSync(DEFAULT_CLIENTS_FILE, 'utf8')) as OAuthClient[];
  const ours: OAuthClient[] = OPERATION_NAMES.map((operation) => ({
    clientId: clientOf(operation),
    clientSecret: `${clientOf(operation)}-secret`,
    portalId: portalOf(operation),
    scopes: [SCOPES.read, SCOPES.write],
  }));
  writeFileSync(clientsFile, JSON.stringify([...shipped, ...ours]));

  // The suite sends hundreds of creates from one portal, far past what a person sends: the
  // per-portal limit is raised for it (test/service/rate-limits.test.ts tests the limit).
  Object.assign(process.env, { PORTAL_SEND_BURST: '100000', PORTAL_SEND_RATE_PER_MINUTE: '600000' });
  let testStack: TestStack;
  try {
    // The one way a suite starts a stack: in memory, every port a free one.
    testStack = await startTestStack({ clientsFile });
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }

  const { stack } = testStack;
  const tokens = new Map<string, string>();
  tokens.set('bystander', (await stack.issueToken(BYSTANDER_CLIENT)).access_token);
  for (const operation of OPERATION_NAMES) tokens.set(operation, (await stack.issueToken(clientOf(operation))).access_token);
  const token = (who: OperationName | 'bystander') => tokens.get(who)!;

  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let uploadRetries = 0;
  const apiUrl = new URL(stack.apiUrl);
  let staleConnectionRetries = 0;
  const send = async (request: RawRequest) => {
    try {
      return await sendRaw(apiUrl, agent, request);
    } catch (error) {
      // An upload the gateway refused from its headers can lose the answer to the reset of the
      // connection it closes (the emulation does not linger); once more, holding the body back.
      if ((request.body?.length ?? 0) > 64 * 1024) {
        uploadRetries++;
        return sendRaw(apiUrl, agent, { ...request, expectEarlyAnswer: true });
      }
      // The gateway closed an idle kept-alive connection as the request went out on it (Node's
      // 5 s keep-alive timeout; a loaded machine widens the race), so the request never reached
      // it: once more, as Node's documentation of `request.reusedSocket` advises.
      if (!(error instanceof StaleConnectionError)) throw error;
      staleConnectionRetries++;
      return sendRaw(apiUrl, agent, request);
    }
  };

  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: stack.region, endpoint: stack.dynamoDb.endpoint, credentials: LOCAL_CREDENTIALS }),
    { unmarshallOptions: { wrapNumbers: true } },
  );
  const sns = new SNSClient({ region: stack.region, endpoint: stack.sns.endpoint, credentials: LOCAL_CREDENTIALS });

  const snapshot = async (): Promise<Snapshot> => {
    const [items, topics, subscriptions] = await Promise.all([scanAll(db, stack.tableName), listTopics(sns), listSubscriptions(sns)]);
    return { items, topics, subscriptions };
  };

  const topicDetails = async (topicArns: readonly string[]) => {
    const details: Record<string, unknown> = {};
    for (const arn of [...topicArns].sort()) {
      const [{ Attributes }, { Tags }] = await Promise.all([
        sns.send(new GetTopicAttributesCommand({ TopicArn: arn })),
        sns.send(new ListTagsForResourceCommand({ ResourceArn: arn })),
      ]);
      details[arn] = canonical({ Attributes, Tags: [...(Tags ?? [])].sort((a, b) => String(a.Key).localeCompare(String(b.Key))) });
    }
    return details;
  };

  let apiOverloadRetries = 0;
  // Seeding and clean-up are not under test: an overload answer is followed by the retry a
  // client would send (a failed create is undone, a failed delete completed by repeating it).
  const api = async (who: OperationName | 'bystander', method: string, subPath: string, body?: unknown) => {
    for (let attempt = 1; ; attempt++) {
      const answer = await send({
        method,
        path: API_PREFIXES[0] + subPath,
        headers: {
          authorization: `Bearer ${token(who)}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8'),
      });
      if (!isOverloadAnswer(answer) || attempt >= API_ATTEMPTS_WHILE_OVERLOADED) return answer;
      apiOverloadRetries++;
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs(answer)));
    }
  };

  return {
    stack,
    token,
    send,
    api,
    snapshot,
    uploadRetries: () => uploadRetries,
    staleConnectionRetries: () => staleConnectionRetries,
    apiOverloadRetries: () => apiOverloadRetries,
    topicDetails,
    stop: async () => {
      agent.destroy();
      db.destroy();
      sns.destroy();
      await testStack.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

async function scanAll(db: DynamoDBDocumentClient, tableName: string): Promise<Record<string, string>> {
  const entries: [string, string][] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await db.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: startKey }));
    for (const item of result.Items ?? []) {
      // A portal's rate limit item: every request that passed its checks takes a token, whatever
      // it then answers (a refusal too); not state a request asks to change.
      if (String(item.sk).startsWith(RATE_LIMIT_KEY_PREFIX)) continue;
      entries.push([itemKey(String(item.portalId), String(item.sk)), JSON.stringify(canonical(item))]);
    }
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function listTopics(sns: SNSClient): Promise<string[]> {
  const arns: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await sns.send(new ListTopicsCommand({ NextToken: token }));
    arns.push(...(result.Topics ?? []).map((topic) => String(topic.TopicArn)));
    token = result.NextToken;
    if (!token) break;
  }
  return arns.sort();
}

async function listSubscriptions(sns: SNSClient): Promise<string[]> {
  const subscriptions: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await sns.send(new ListSubscriptionsCommand({ NextToken: token }));
    subscriptions.push(...(result.Subscriptions ?? []).map((subscription) => JSON.stringify(canonical(subscription))));
    token = result.NextToken;
    if (!token) break;
  }
  return subscriptions.sort();
}

/** A reset of a reused kept-alive connection before any answer: the server had closed it. */
class StaleConnectionError extends Error {
  override readonly name = 'StaleConnectionError';
}

const REQUEST_TIMEOUT_MS = 20_000;
/** Big bodies go out in pieces, so that an early answer (API Gateway's 413) stops the upload. */
const PIECE_BYTES = 256 * 1024;
const EARLY_ANSWER_WAIT_MS = 1_000;

/**
 * One request with node:http, the request-target and headers exactly as given. Resolves with
 * the answer once it has been read, even when the server answered before the body was sent
 * (it then closes the connection; the rest of the body is not sent).
 */
export function sendRaw(apiUrl: URL, agent: http.Agent, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = request.body ?? Buffer.alloc(0);
    const headers: Record<string, string> = { ...request.headers };
    if (!request.chunked && (body.length > 0 || request.method !== 'GET')) headers['content-length'] = String(body.length);
    let answered = false;
    const outgoing = http.request(
      {
        host: apiUrl.hostname,
        port: apiUrl.port,
        method: request.method,
        path: request.path,
        headers,
        agent,
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
          // An upload cut short leaves the socket unusable.
          if (!outgoing.writableFinished) outgoing.destroy();
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      const message = `${request.method} ${request.path.slice(0, 200)}: ${error.message}`;
      reject(outgoing.reusedSocket && error.code === 'ECONNRESET' ? new StaleConnectionError(message) : new Error(message));
    });
    if (body.length === 0) {
      outgoing.end();
      return;
    }
    if (body.length <= PIECE_BYTES && !request.chunked && !request.expectEarlyAnswer) {
      outgoing.end(body);
      return;
    }
    // Chunked bodies go in at least three pieces, so that the server has to put them together.
    const pieceBytes = request.chunked ? Math.min(PIECE_BYTES, Math.max(1, Math.ceil(body.length / 3))) : PIECE_BYTES;
    let offset = 0;
    const writeMore = () => {
      if (answered || outgoing.destroyed) return;
      if (offset >= body.length) {
        outgoing.end();
        return;
      }
      const piece = body.subarray(offset, offset + pieceBytes);
      offset += piece.length;
      // One piece per turn of the event loop, so that an early answer is read before the next write.
      if (outgoing.write(piece)) setImmediate(writeMore);
      else outgoing.once('drain', () => setImmediate(writeMore));
    };
    if (request.expectEarlyAnswer) {
      outgoing.flushHeaders();
      const timer = setTimeout(writeMore, EARLY_ANSWER_WAIT_MS);
      outgoing.once('response', () => clearTimeout(timer));
      outgoing.once('close', () => clearTimeout(timer));
    } else {
      writeMore();
    }
  });
}
