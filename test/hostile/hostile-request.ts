/** What a generated hostile request is (requests.ts), and the outcomes its answer may have. */
import type { HttpMethod } from '../../shared/operations';

/** Request bodies over 64 KiB are refused with a 400. */
export const MAX_BODY_BYTES = 64 * 1024;
/** API Gateway's payload limit for HTTP APIs: larger requests get its 413. */
export const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const PROTOCOLS = ['https', 'http', 'email', 'email-json', 'sqs', 'lambda'] as const;

export type OperationName = 'create' | 'update' | 'activate' | 'list' | 'rename' | 'delete';
export type Outcome = 'accept' | 'either' | 'refuse' | 'refuse-or-no-route' | 'no-route' | 'too-large' | 'too-large-or-no-route';
export type Verdict = 'ok' | 'maybe' | 'bad';

/** Error codes of refusals that concern the body as a whole. */
export const BODY_CODES = ['MALFORMED_JSON', 'MISSING_BODY', 'BODY_NOT_OBJECT', 'BODY_TOO_LARGE', 'UNSUPPORTED_CONTENT_TYPE'] as const;
/** In a blame list: any field of the operation. */
export const ANY_FIELD = '*';
/** Refusals only a dependency can decide (the handler has to look the id up in DynamoDB). */
export const DEPENDENCY_CODES: readonly string[] = ['SUBSCRIPTION_NOT_FOUND', 'SUBSCRIPTION_LIMIT_REACHED', 'ENDPOINT_REFUSED', 'IDEMPOTENCY_KEY_REUSED'];

/** The subscriptions of the caller's portal when a request is sent. */
export interface Ids {
  /** The one valid requests of this operation may change or delete. */
  readonly scratch?: string;
  /** Ones no request may touch. */
  readonly seeds: readonly string[];
}

export interface Target {
  /** The request-target, raw: sent as is, never normalized. */
  readonly path: string;
  readonly outcome: Outcome;
  /** For refusals: the answer must name one of these (a field of the body, or an error code). */
  readonly blame: readonly string[];
  /**
   * A refusal that only a dependency can decide (nothing else is wrong with the request): it
   * passes validation and reaches DynamoDB, so an overload 503 is a fair answer to it.
   */
  readonly dependencyRefusal?: boolean;
  /**
   * For refusals of invalid fields (INVALID_REQUEST): each surely invalid part of the body, by
   * the fields that may be blamed for it. The refusal's `errors` must name one of each group:
   * every problem at once, not only the first.
   */
  readonly mustName?: readonly (readonly string[])[];
}

export interface HostileRequest {
  readonly operation: OperationName;
  readonly label: string;
  readonly method: HttpMethod;
  /** Besides authorization and Idempotency-Key. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Idempotency-Key header, if sent; `unique`: with a random suffix added when sent. */
  readonly idempotencyKey?: { readonly value: string; readonly unique: boolean };
  readonly bodyLength: number;
  /** The body's bytes, made when sent (some are megabytes). */
  body(): Buffer | undefined;
  readonly chunked: boolean;
  target(ids: Ids): Target;
  /** If accepted: the normalized values the service must store (or list). */
  readonly expected: Readonly<Record<string, unknown>>;
}

/** What the generators may use: the ids that exist when the suite starts. */
export interface GeneratorIds {
  /** This portal's scratch subscription (update, activate, rename); delete's changes, so it resolves late. */
  readonly scratch?: string;
  /** This portal's seeds. */
  readonly seeds: readonly string[];
  /** Subscriptions of other portals: existing ids this portal must not reach. */
  readonly foreign: readonly string[];
}
