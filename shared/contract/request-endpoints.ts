/**
 * What each protocol's endpoint must be: the `allOf` branches of create's body that tie the
 * endpoint's form to the protocol sent (request-schemas.ts). The admin page shows each
 * protocol's `description` and first example, read from the OpenAPI document.
 */
import type { PROTOCOLS } from '../subscriptions/model';
import { MAX_URL_LENGTH, MAX_EMAIL_LENGTH, absoluteUrl, EMAIL_ADDRESS, SQS_QUEUE_ARN, SQS_FIFO_QUEUE_ARN, LAMBDA_FUNCTION_ARN } from './schema-patterns';

const urlEndpoint = (protocol: 'https' | 'http') => ({
  type: 'string',
  maxLength: MAX_URL_LENGTH,
  pattern: absoluteUrl(protocol),
  description: `An absolute ${protocol}:// URL of at most ${MAX_URL_LENGTH} characters.`,
  examples: [`${protocol}://hooks.example.com/webhooks`],
  'x-error': `must be an absolute ${protocol}:// URL of at most ${MAX_URL_LENGTH} characters for protocol ${protocol}.`,
});

const emailEndpoint = (protocol: 'email' | 'email-json') => ({
  type: 'string',
  maxLength: MAX_EMAIL_LENGTH,
  pattern: EMAIL_ADDRESS,
  description: 'An e-mail address.',
  examples: ['ops@example.com'],
  'x-error': `must be an e-mail address for protocol ${protocol}.`,
});

/** The endpoint each protocol takes: the admin page shows `description` and the first of `examples`. */
const ENDPOINT_BY_PROTOCOL = {
  https: urlEndpoint('https'),
  http: urlEndpoint('http'),
  email: emailEndpoint('email'),
  'email-json': emailEndpoint('email-json'),
  sqs: {
    type: 'string',
    pattern: SQS_QUEUE_ARN,
    description: 'A standard SQS queue\'s ARN: arn:aws:sqs:<region>:<account>:<queue> (not a FIFO queue).',
    examples: ['arn:aws:sqs:eu-west-1:123456789012:webhooks'],
    'x-error': 'must be an SQS queue ARN (arn:aws:sqs:<region>:<account>:<queue>) for protocol sqs.',
    allOf: [
      {
        // SNS standard topics (one per subscription here) cannot deliver to FIFO queues.
        not: { type: 'string', pattern: SQS_FIFO_QUEUE_ARN },
        'x-error': 'names a FIFO queue (its name ends in .fifo), and FIFO queues are not supported: subscribe a standard SQS queue.',
      },
    ],
  },
  lambda: {
    type: 'string',
    pattern: LAMBDA_FUNCTION_ARN,
    description: 'A Lambda function ARN: arn:aws:lambda:<region>:<account>:function:<name>.',
    examples: ['arn:aws:lambda:eu-west-1:123456789012:function:hook'],
    'x-error': 'must be a Lambda function ARN (arn:aws:lambda:<region>:<account>:function:<name>) for protocol lambda.',
  },
} as const satisfies Record<(typeof PROTOCOLS)[number], object>;

/** One branch per protocol: with that protocol, the endpoint must have its form. */
export const endpointSuitsProtocol = Object.entries(ENDPOINT_BY_PROTOCOL).map(([protocol, endpoint]) => ({
  if: { properties: { protocol: { const: protocol } }, required: ['protocol'] },
  then: { properties: { endpoint } },
}));
