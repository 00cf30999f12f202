/**
 * The rules a request must follow (DESIGN.md §3), as the schemas of the operations' bodies.
 * Each schema's output is normalized: names trimmed, protocols lower-case, events without
 * duplicates, `config_id`/`configId` merged into `configId`.
 *
 * zod builds a schema when it is declared, at module load: a millisecond or more of every cold
 * start per schema. So the pieces are functions, and each request schema is one call marked
 * pure: a handler's bundle keeps, and its cold start builds, only its own body's schema
 * (esbuild drops the others). README, "Performance".
 */
// zod/mini: the same validator as zod, tree-shakable (about 20 KB in a bundle instead of 440 KB).
import * as z from 'zod/mini';
import { config } from '../environment';
import { UUID } from './config-id';
import { PROTOCOLS, type Protocol } from './model';

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;
const SQS_QUEUE_ARN = /^arn:aws[a-z-]*:sqs:[a-z]{2}(-[a-z]+)+-\d:\d{12}:[A-Za-z0-9_-]{1,80}(\.fifo)?$/;
const LAMBDA_FUNCTION_ARN =
  /^arn:aws[a-z-]*:lambda:[a-z]{2}(-[a-z]+)+-\d:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_$-]{1,128})?$/;
const MAX_URL_LENGTH = 2048;
const MAX_EVENTS = 50;

/** "is required" when the field is absent, otherwise what it must be. */
function expected(what: string) {
  return { error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required.' : `must be ${what}.`) };
}

const name = () =>
  z
    .pipe(
      z.string(expected('a string')).check(z.refine((value) => value.isWellFormed(), 'must be valid Unicode text.')),
      z.transform((value: string) => value.trim()),
    )
    .check(
      z.refine((value) => value.length > 0, 'must not be empty.'),
      z.refine((value) => [...value].length <= 255, 'must be at most 255 characters.'),
      z.refine((value) => !CONTROL_CHARACTERS.test(value), 'must not contain control characters.'),
    );

// Checked before its protocol's rules: SNS could not even encode a lone surrogate.
const endpoint = () =>
  z
    .string(expected('a string'))
    .check(
      z.refine((value) => value.isWellFormed(), 'must be valid Unicode text.'),
      z.refine((value) => !CONTROL_CHARACTERS.test(value), 'must not contain control characters.'),
    );

/** How many unknown kinds a refusal quotes; the rest are counted. */
const UNKNOWN_KINDS_QUOTED = 5;
const events = () => {
  const eventKinds = config.eventKinds;
  return z.pipe(
    z.array(z.string(expected('a string')), expected('an array of event kinds')).check(
      z.minLength(1, 'must list at least one event kind.'),
      // Not z.maxLength: zod stops the whole body's validation at an oversized array, which would
      // hide the body's other problems (config_id, the endpoint) from the refusal.
      z.refine((kinds) => kinds.length <= MAX_EVENTS, `must list at most ${MAX_EVENTS} event kinds.`),
      z.superRefine((kinds, ctx) => {
        const unknown = [...new Set(kinds.filter((kind) => !eventKinds.includes(kind)))];
        if (unknown.length === 0) return;
        const quoted = unknown.slice(0, UNKNOWN_KINDS_QUOTED).map((kind) => JSON.stringify(kind.slice(0, 100)));
        const more = unknown.length > UNKNOWN_KINDS_QUOTED ? ` and ${unknown.length - UNKNOWN_KINDS_QUOTED} more` : '';
        ctx.addIssue({
          code: 'custom',
          message:
            `${unknown.length === 1 ? 'holds an unknown event kind' : 'hold unknown event kinds'} ${quoted.join(', ')}${more}; ` +
            `allowed kinds are ${eventKinds.join(', ')}.`,
        });
      }),
    ),
    z.transform((kinds: string[]) => [...new Set(kinds)]),
  );
};

const protocol = () =>
  z.pipe(
    z.pipe(z.string(expected(`one of ${PROTOCOLS.join(', ')}`)), z.transform((value: string) => value.toLowerCase())),
    z.enum(PROTOCOLS, { error: `must be one of ${PROTOCOLS.join(', ')}.` }),
  );

const configId = () =>
  z.pipe(
    z.string(expected('a UUID')).check(z.regex(UUID, 'must be a UUID such as 0192f8a4-7b3c-7d2e-9f01-23456789abcd.')),
    z.transform((value: string) => value.toLowerCase()),
  );

const status = () => z.union([z.literal(0), z.literal(1)], expected('1 (activated) or 0 (deactivated)'));

/** Why an endpoint does not suit its protocol, or undefined when it does. */
export function endpointProblem(protocol: Protocol, endpoint: string): string | undefined {
  switch (protocol) {
    case 'https':
    case 'http': {
      const problem = `must be an absolute ${protocol}:// URL of at most ${MAX_URL_LENGTH} characters for protocol ${protocol}.`;
      if (endpoint.length > MAX_URL_LENGTH || !endpoint.toLowerCase().startsWith(`${protocol}://`)) return problem;
      try {
        const url = new URL(endpoint);
        return url.hostname === '' || url.protocol !== `${protocol}:` ? problem : undefined;
      } catch {
        return problem;
      }
    }
    case 'email':
    case 'email-json':
      return endpoint.length <= 254 && EMAIL.test(endpoint) ? undefined : `must be an e-mail address for protocol ${protocol}.`;
    case 'sqs':
      if (!SQS_QUEUE_ARN.test(endpoint)) return 'must be an SQS queue ARN (arn:aws:sqs:<region>:<account>:<queue>) for protocol sqs.';
      // SNS standard topics (one per subscription here) cannot deliver to FIFO queues.
      return endpoint.endsWith('.fifo')
        ? 'names a FIFO queue (its name ends in .fifo), and FIFO queues are not supported: subscribe a standard SQS queue.'
        : undefined;
    case 'lambda':
      return LAMBDA_FUNCTION_ARN.test(endpoint)
        ? undefined
        : 'must be a Lambda function ARN (arn:aws:lambda:<region>:<account>:function:<name>) for protocol lambda.';
  }
}

/**
 * A check of the whole body that reads `fields`: it runs whenever those fields are valid, also
 * when others are not, so that a refusal names every problem at once.
 */
function whenValid(...fields: string[]) {
  return { when: (payload: z.core.ParsePayload) => !payload.issues.some((issue) => fields.includes(String(issue.path?.[0]))) };
}

export const createSubscriptionRequest = /* @__PURE__ */ (() =>
  z.object({ name: name(), endpoint: endpoint(), protocol: protocol(), events: events() }).check(
    z.superRefine((request, ctx) => {
      const problem = endpointProblem(request.protocol, request.endpoint);
      if (problem) ctx.addIssue({ code: 'custom', path: ['endpoint'], message: problem });
    }, whenValid('protocol', 'endpoint')),
  ))();
export type CreateSubscriptionRequest = z.output<typeof createSubscriptionRequest>;

/**
 * Bodies that address a subscription take `config_id`, or `configId` as an alias; both may be
 * sent only when they agree. The output carries it as `configId`.
 */
const addressingFields = () => {
  const id = configId();
  return { config_id: z.optional(id), configId: z.optional(id) };
};
type Addressing = { config_id?: string; configId?: string };

const checkAddressing = () =>
  z.superRefine((request: Addressing, ctx) => {
    if (request.config_id === undefined && request.configId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['config_id'], message: 'is required.' });
    } else if (request.config_id !== undefined && request.configId !== undefined && request.config_id !== request.configId) {
      ctx.addIssue({
        code: 'custom',
        path: ['config_id'],
        message: 'and configId name different subscriptions; send the id in config_id only.',
      });
    }
  }, whenValid('config_id', 'configId'));

function resolveConfigId<T extends Addressing>({ config_id, configId: alias, ...rest }: T) {
  return { ...rest, configId: (config_id ?? alias)! };
}

export const updateSubscriptionRequest = /* @__PURE__ */ (() =>
  z.pipe(z.object({ ...addressingFields(), events: events() }).check(checkAddressing()), z.transform(resolveConfigId)))();
export const renameSubscriptionRequest = /* @__PURE__ */ (() =>
  z.pipe(z.object({ ...addressingFields(), name: name() }).check(checkAddressing()), z.transform(resolveConfigId)))();
export const activateSubscriptionRequest = /* @__PURE__ */ (() =>
  z.pipe(z.object({ ...addressingFields(), status: status() }).check(checkAddressing()), z.transform(resolveConfigId)))();

export const testSubscriptionRequest = /* @__PURE__ */ (() =>
  z.pipe(z.object({ ...addressingFields() }).check(checkAddressing()), z.transform(resolveConfigId)))();

/** For the OpenAPI document (infra/openapi/): the schema of delete's {configId} path parameter. */
export const configIdSchema = /* @__PURE__ */ (() => configId())();
