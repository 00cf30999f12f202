/**
 * The rules a request must follow, as the rules of the operations' bodies (body-rules.ts),
 * each field's check beside the JSON Schema the OpenAPI document shows for it. Their output is
 * normalized: names trimmed, protocols lower-case, events without duplicates,
 * `config_id`/`configId` merged into `configId`.
 *
 * Each rule is an object literal, or one call marked pure where it computes a text, so a
 * handler's bundle keeps only its own body's rules (esbuild drops the others).
 */
import { config } from '../environment';
import { UUID, UUID_PATTERN } from '../subscriptions/config-id';
import { PROTOCOLS, type Protocol, type SubscriptionStatus } from '../subscriptions/model';
import { type BodyCheck, type BodyOf, bodyRule, expected, type FieldRule, invalid, optional, valid } from './body-rules';

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;
const SQS_QUEUE_ARN = /^arn:aws[a-z-]*:sqs:[a-z]{2}(-[a-z]+)+-\d:\d{12}:[A-Za-z0-9_-]{1,80}(\.fifo)?$/;
const LAMBDA_FUNCTION_ARN =
  /^arn:aws[a-z-]*:lambda:[a-z]{2}(-[a-z]+)+-\d:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_$-]{1,128})?$/;
const MAX_NAME_LENGTH = 255;
const MAX_URL_LENGTH = 2048;
const MAX_EVENTS = 50;
/** How many unknown kinds a refusal quotes; the rest are counted. */
const UNKNOWN_KINDS_QUOTED = 5;

/** Trimmed; 1 to 255 characters (code points), none of them a control character. */
const name = /* @__PURE__ */ ((): FieldRule<string> => ({
  jsonSchema: { type: 'string', minLength: 1, description: `Trimmed; then 1 to ${MAX_NAME_LENGTH} characters, without control characters.` },
  read(input) {
    if (typeof input !== 'string') return invalid(expected(input, 'a string'));
    if (!input.isWellFormed()) return invalid('must be valid Unicode text.');
    const trimmed = input.trim();
    const issues = [
      trimmed.length === 0 && 'must not be empty.',
      [...trimmed].length > MAX_NAME_LENGTH && `must be at most ${MAX_NAME_LENGTH} characters.`,
      CONTROL_CHARACTERS.test(trimmed) && 'must not contain control characters.',
    ].flatMap((message) => (message ? [{ path: [], message }] : []));
    return issues.length > 0 ? { issues } : valid(trimmed);
  },
}))();

/** Any text here; whether it suits its protocol is create's check across fields (endpointProblem). */
const endpoint: FieldRule<string> = {
  jsonSchema: { type: 'string', minLength: 1 },
  read(input) {
    if (typeof input !== 'string') return invalid(expected(input, 'a string'));
    // Before its protocol's rules: SNS could not even encode a lone surrogate.
    const issues = [
      !input.isWellFormed() && 'must be valid Unicode text.',
      CONTROL_CHARACTERS.test(input) && 'must not contain control characters.',
    ].flatMap((message) => (message ? [{ path: [], message }] : []));
    return issues.length > 0 ? { issues } : valid(input);
  },
};

const protocol = /* @__PURE__ */ ((): FieldRule<Protocol> => {
  const list = PROTOCOLS.join(', ');
  return {
    jsonSchema: { type: 'string', description: `One of ${list} (case-insensitive).`, examples: [...PROTOCOLS] },
    read(input) {
      if (typeof input !== 'string') return invalid(expected(input, `one of ${list}`));
      const lowerCase = input.toLowerCase();
      return (PROTOCOLS as readonly string[]).includes(lowerCase) ? valid(lowerCase as Protocol) : invalid(`must be one of ${list}.`);
    },
  };
})();

/** Kinds of the configured catalog (EVENT_KINDS; the OpenAPI document adds them as the items' enum). */
const events: FieldRule<string[]> = {
  jsonSchema: { type: 'array', minItems: 1, maxItems: MAX_EVENTS, items: { type: 'string' } },
  read(input) {
    if (!Array.isArray(input)) return invalid(expected(input, 'an array of event kinds'));
    const notText = input.flatMap((kind, index) => (typeof kind === 'string' ? [] : [{ path: [index], message: expected(kind, 'a string') }]));
    if (notText.length > 0) return { issues: notText };
    const kinds = input as string[];
    if (kinds.length === 0) return invalid('must list at least one event kind.');
    // Checked apart from the catalog, so that a long list of unknown kinds gets both answers.
    const issues = kinds.length > MAX_EVENTS ? [{ path: [], message: `must list at most ${MAX_EVENTS} event kinds.` }] : [];
    const { eventKinds } = config;
    const unknown = [...new Set(kinds.filter((kind) => !eventKinds.includes(kind)))];
    if (unknown.length > 0) {
      const quoted = unknown.slice(0, UNKNOWN_KINDS_QUOTED).map((kind) => JSON.stringify(kind.slice(0, 100)));
      const more = unknown.length > UNKNOWN_KINDS_QUOTED ? ` and ${unknown.length - UNKNOWN_KINDS_QUOTED} more` : '';
      issues.push({
        path: [],
        message:
          `${unknown.length === 1 ? 'holds an unknown event kind' : 'hold unknown event kinds'} ${quoted.join(', ')}${more}; ` +
          `allowed kinds are ${eventKinds.join(', ')}.`,
      });
    }
    return issues.length > 0 ? { issues } : valid([...new Set(kinds)]);
  },
};

/** A subscription's id in a body; any case, answered in lower case. */
export const configId: FieldRule<string> = {
  jsonSchema: { type: 'string', pattern: UUID_PATTERN },
  read(input) {
    if (typeof input !== 'string') return invalid(expected(input, 'a UUID'));
    return UUID.test(input) ? valid(input.toLowerCase()) : invalid('must be a UUID such as 0192f8a4-7b3c-7d2e-9f01-23456789abcd.');
  },
};

const status: FieldRule<SubscriptionStatus> = {
  jsonSchema: { type: 'integer', enum: [0, 1], description: '1 (activated) or 0 (deactivated).' },
  read(input) {
    return input === 0 || input === 1 ? valid(input === 1 ? 1 : 0) : invalid(expected(input, '1 (activated) or 0 (deactivated)'));
  },
};

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

const endpointSuitsProtocol: BodyCheck<{ protocol: Protocol; endpoint: string }> = {
  reads: ['protocol', 'endpoint'],
  check({ protocol, endpoint }) {
    const problem = endpointProblem(protocol, endpoint);
    return problem ? { path: ['endpoint'], message: problem } : undefined;
  },
};

export const createSubscriptionRequest = /* @__PURE__ */ bodyRule({ name, endpoint, protocol, events }, [endpointSuitsProtocol]);
export type CreateSubscriptionRequest = BodyOf<typeof createSubscriptionRequest>;

/**
 * Bodies that address a subscription take `config_id`, or `configId` as an alias; both may be
 * sent only when they agree. The operation receives it as `configId`.
 */
type Addressing = { config_id?: string; configId?: string };
/** A function, not an object spread into each rule, so esbuild can drop the rules a bundle does not use. */
const addressed = <F extends object>(fields: F) => ({ config_id: optional(configId), configId: optional(configId), ...fields });

const oneSubscriptionAddressed: BodyCheck<Addressing> = {
  reads: ['config_id', 'configId'],
  jsonSchema: { anyOf: [{ required: ['config_id'] }, { required: ['configId'] }] },
  check({ config_id, configId: alias }) {
    if (config_id === undefined && alias === undefined) return { path: ['config_id'], message: 'is required.' };
    if (config_id !== undefined && alias !== undefined && config_id !== alias) {
      return { path: ['config_id'], message: 'and configId name different subscriptions; send the id in config_id only.' };
    }
    return undefined;
  },
};

function resolveConfigId<T extends Addressing>({ config_id, configId: alias, ...rest }: T): Omit<T, keyof Addressing> & { configId: string } {
  return { ...rest, configId: (config_id ?? alias)! };
}

export const updateSubscriptionRequest = /* @__PURE__ */ bodyRule(/* @__PURE__ */ addressed({ events }), [oneSubscriptionAddressed], resolveConfigId);
export const renameSubscriptionRequest = /* @__PURE__ */ bodyRule(/* @__PURE__ */ addressed({ name }), [oneSubscriptionAddressed], resolveConfigId);
export const activateSubscriptionRequest = /* @__PURE__ */ bodyRule(/* @__PURE__ */ addressed({ status }), [oneSubscriptionAddressed], resolveConfigId);
export const testSubscriptionRequest = /* @__PURE__ */ bodyRule(/* @__PURE__ */ addressed({}), [oneSubscriptionAddressed], resolveConfigId);
export const confirmSubscriptionRequest = /* @__PURE__ */ bodyRule(/* @__PURE__ */ addressed({}), [oneSubscriptionAddressed], resolveConfigId);
