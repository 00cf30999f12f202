/**
 * The local stack as the hostile-input suite uses it: one portal per operation (and the shipped
 * portal-a as a bystander), a raw HTTP client that sends request-targets and bodies exactly as
 * given (raw-http.ts), and snapshots of everything the service could change: every item of the
 * table and every topic and SNS subscription of the emulator, read through the real AWS SDK
 * clients (snapshot.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetTopicAttributesCommand, ListTagsForResourceCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_CREDENTIALS, type LocalStack } from '../../infra/local/stack/local-stack';
import { DEFAULT_CLIENTS_FILE, type OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES, SCOPES } from '../../shared/operations';
import { startTestStack, type TestStack } from '../support/local-stack-client';
import { type RawAnswer, type RawRequest, sendRaw, StaleConnectionError } from './raw-http';
import type { OperationName } from './requests';
import { canonical, listSubscriptions, listTopics, scanAll, type Snapshot } from './snapshot';

export const OPERATION_NAMES: readonly OperationName[] = ['create', 'update', 'activate', 'list', 'rename', 'delete'];

/** The shipped admin client of portal-a: its subscriptions must survive everything. */
export const BYSTANDER_CLIENT = 'portal-a-admin';

export const portalOf = (operation: OperationName) => `hostile-${operation}`;
const clientOf = (operation: OperationName) => `hostile-${operation}-admin`;


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

  // The suite sends hundreds of requests of each route from one portal, far past what a person
  // sends: the per-portal limits are raised for it (test/service/rate-limits*.test.ts test them).
  // The change and read limits are a burst no run spends, at a token a second: a bucket whose
  // moment moves by less than a call takes would race concurrent takes past each other's clock
  // reads (refused as too busy); one a second ahead of the clock never does.
  Object.assign(process.env, {
    PORTAL_SEND_BURST: '100000',
    PORTAL_SEND_RATE_PER_MINUTE: '600000',
    PORTAL_CHANGE_BURST: '100000',
    PORTAL_CHANGE_RATE_PER_MINUTE: '60',
    PORTAL_READ_BURST: '100000',
    PORTAL_READ_RATE_PER_MINUTE: '60',
  });
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
