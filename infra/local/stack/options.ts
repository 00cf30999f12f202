/** What startLocalStack (local-stack.ts) takes, and the running stack it gives. */
import type { DynamoDbLocal } from '../dynamodb/dynamodb-local';
import type { EventBus } from '../events/event-bus';
import type { EventQueue } from '../events/event-queue';
import type { OAuthClient } from '../auth/clients';
import type { TokenResponse } from '../auth/token-endpoint';
import type { SigningKey } from '../auth/signing-key';
import type { SnsEmulator, SnsEmulatorOptions } from '../sns/emulator';

/**
 * The ports have no default here, on purpose: `npm start` (infra/local/start.ts) gives DEFAULT_PORTS or what
 * the environment says, and every test gives 0 (a free port) or ports it found free. A default
 * would let a suite that forgot one take the port of the `npm start` running beside it.
 */
export interface LocalStackOptions {
  /** The API and token endpoint; 0 = a free port. */
  readonly port: number;
  readonly dynamoDbPort: number;
  readonly snsPort: number;
  /** The EventBridge stand-in. */
  readonly eventsPort: number;
  /** The bus the stand-in routes to the dispatcher; default EVENT_BUS_NAME or webhooks-portal-events. */
  readonly eventBusName?: string;
  /** How long a failed event waits before it is tried again; default 1 s. */
  readonly eventRetryDelayMs?: number;
  /** The SNS emulator's http/https retries, backoff, and (for tests) timeout and limits; default its own. */
  readonly snsDelivery?: Pick<SnsEmulatorOptions, 'deliveryRetries' | 'deliveryBackoffMs' | 'deliveryTimeoutMs' | 'limits'>;
  /** How often the retry sweep runs (scheduled retries, failing notices, disabling); default 2 s. */
  readonly retrySweepIntervalMs?: number;
  /** Where state is kept between starts; default `.data`. */
  readonly dataDir?: string;
  /** Keep nothing: DynamoDB Local in memory, no SNS state file, new signing keys (tokens and SNS messages). */
  readonly inMemory?: boolean;
  /**
   * A DynamoDB Local already running, to hold the stack's table (TABLE_NAME) instead of starting
   * one of its own: the test suites share one Java process, each with tables of its own. In
   * memory only; the stack deletes its table when it stops and leaves the server running.
   */
  readonly sharedDynamoDb?: { readonly endpoint: string; readonly port: number };
  /** The OAuth clients file; default infra/local/auth/clients.json. */
  readonly clientsFile?: string;
  readonly audience?: string;
  /** Origins that may embed the admin page in a frame (its CSP frame-ancestors); default none. */
  readonly adminFrameAncestors?: readonly string[];
  /** Access tokens' lifetime in seconds; default an hour (tests of the page's refresh shorten it). */
  readonly tokenLifetimeSeconds?: number;
  /** The token signing key; default: kept under dataDir, or made anew in memory. */
  readonly signingKey?: SigningKey;
  /** Emulator and gateway log lines; default: none. */
  readonly log?: (line: string) => void;
  /**
   * The endpoints the handlers are to use, given those of the started emulators; default:
   * the emulators' own. Tests put fault-injecting proxies in between.
   */
  readonly handlerEndpoints?: (emulators: ServiceEndpoints) => ServiceEndpoints | Promise<ServiceEndpoints>;
}

export interface ServiceEndpoints {
  readonly dynamoDb: string;
  readonly sns: string;
}

export interface LocalStack {
  /** Base URL of the API and the token endpoint, e.g. http://127.0.0.1:3000. */
  readonly apiUrl: string;
  /** The API under each prefix, canonical first. */
  readonly apiBaseUrls: readonly string[];
  readonly tokenUrl: string;
  readonly jwksUrl: string;
  /** The `iss` of local tokens (= apiUrl). */
  readonly issuer: string;
  readonly audience: string;
  readonly clients: readonly OAuthClient[];
  readonly tableName: string;
  readonly region: string;
  /** The DynamoDB Local the stack's table is in: its own, or the one it shares. */
  readonly dynamoDb: Pick<DynamoDbLocal, 'endpoint' | 'port'>;
  readonly sns: SnsEmulator;
  /** The EventBridge stand-in (PutEvents) and the bus it routes portal events from. */
  readonly events: EventBus;
  readonly eventBusName: string;
  /** The dispatcher's queue: what waits, and what was given up on. */
  readonly eventQueue: EventQueue;
  /**
   * The delivery dead-letter queue: what SNS gave up on, as SQS batches for the dead-letter
   * forwarder, the same handler as on AWS.
   */
  readonly deadLetterQueue: EventQueue;
  /** The fair queue the forwarder sends each dead letter to, by portal, and the dead-letter recorder consumes. */
  readonly deadLettersByPortal: EventQueue;
  /** Where state is kept; undefined in memory. */
  readonly dataDir: string | undefined;
  /** The OpenAPI document served at `GET /openapi.json`. */
  readonly openApiUrl: string;
  /** The admin page, `GET /admin/`. */
  readonly adminUrl: string;
  /** A token for one of the clients, as the token endpoint would issue it. */
  issueToken(clientId: string, scopes?: readonly string[]): Promise<TokenResponse>;
  /**
   * Stops the gateway, the event bus, the dispatcher's queue (after the batch it runs), the SNS
   * emulator and DynamoDB Local (its Java process included). What is still queued or being
   * delivered is kept under dataDir and resumed at the next start; in memory it is discarded,
   * and the log says how much.
   */
  stop(): Promise<void>;
}
