/**
 * What the contract's schemas share (schemas.ts): the JSON Schema dialect, the ids that name each
 * top-level schema, the limits of a field, and the regular expressions the request fields check.
 */
import { PROTOCOLS } from '../subscriptions/model';

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const ID_PREFIX = 'urn:webhook-subscriptions:schema:';

/** A top-level schema's `$id`; its name is its component name in the OpenAPI document. */
export const schemaId = (name: string) => `${ID_PREFIX}${name}`;
/** The component name of a schema id; undefined for any other reference. */
export const schemaNameOf = (id: string) => (id.startsWith(ID_PREFIX) ? id.slice(ID_PREFIX.length) : undefined);

export const ref = (schema: { readonly $id: string }) => ({ $ref: schema.$id }) as const;

export const MAX_NAME_LENGTH = 255;
export const MAX_URL_LENGTH = 2048;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_EVENTS = 50;
export const EXAMPLE_CONFIG_ID = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

// Patterns are ECMAScript regular expressions with the `u` flag (JSON Schema's dialect): `\s` is
// what String.prototype.trim() removes, and a surrogate range matches only unpaired surrogates.
// Each is linear on the 64 KiB a body may hold: no two quantifiers compete for the same text.
export const CONTROL = '\\u0000-\\u001F\\u007F-\\u009F';
export const LONE_SURROGATE = '[\\uD800-\\uDFFF]';
/** Trimmed, at most 255 characters (code points): first and last non-space at most 255 apart. */
export const TRIMMED_AT_MOST_MAX_NAME = `^\\s*(?:\\S(?:[\\s\\S]{0,${MAX_NAME_LENGTH - 2}}\\S)?\\s*)?$`;
/** Trimmed, no control character left (a tab or newline around the name is trimmed away). */
export const TRIMMED_WITHOUT_CONTROL = `^\\s*(?:[^\\s${CONTROL}](?:[^${CONTROL}]*[^\\s${CONTROL}])?\\s*)?$`;

const caseInsensitive = (text: string) =>
  [...text].map((letter) => (/[a-z]/.test(letter) ? `[${letter.toUpperCase()}${letter}]` : letter)).join('');
const URL_PORT = '(?::0*(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])?)?';
/** An absolute URL of the scheme (in any case) with a host: user info, port, path, query and fragment optional. */
export const absoluteUrl = (scheme: string) =>
  `^${caseInsensitive(scheme)}://(?:[^\\s/?#@\\\\]*@)?(?:[^\\s/?#@:\\[\\]\\\\<>^|%]+|\\[[0-9A-Fa-f:.]+\\])${URL_PORT}(?:[/?#][\\s\\S]*)?$`;
/** Local part, `@`, a domain with a dot that is neither its first nor its last character. */
export const EMAIL_ADDRESS = '^[^\\s@<>()\\[\\],;:"]+@[^\\s@<>()\\[\\],;:"][^\\s@<>()\\[\\],;:".]*\\.[^\\s@<>()\\[\\],;:"]+$';
const ARN_REGION_ACCOUNT = '[a-z]{2}(?:-[a-z]+)+-[0-9]:[0-9]{12}';
export const SQS_QUEUE_ARN = `^arn:aws[a-z-]*:sqs:${ARN_REGION_ACCOUNT}:[A-Za-z0-9_-]{1,80}(?:\\.fifo)?$`;
export const SQS_FIFO_QUEUE_ARN = `^arn:aws[a-z-]*:sqs:${ARN_REGION_ACCOUNT}:[A-Za-z0-9_-]{1,80}\\.fifo$`;
export const LAMBDA_FUNCTION_ARN = `^arn:aws[a-z-]*:lambda:${ARN_REGION_ACCOUNT}:function:[A-Za-z0-9_-]{1,64}(?::[A-Za-z0-9_$-]{1,128})?$`;

export const PROTOCOL_LIST = PROTOCOLS.join(', ');

/**
 * SNS's `throttlePolicy.maxReceivesPerSecond` of an http/https subscription's delivery policy:
 * an `int`, "1 or greater", no throttling by default (SNS Developer Guide, "Amazon SNS message
 * delivery retries", section "Creating an HTTP/S delivery policy", its table of the policy's
 * attributes; https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html).
 * The page names no upper bound; its JSON format ("SetSubscriptionAttributes delivery policy
 * JSON format") calls the value an int, so the largest is the largest 32-bit integer.
 */
export const MIN_RECEIVES_PER_SECOND = 1;
export const MAX_RECEIVES_PER_SECOND = 2_147_483_647;
