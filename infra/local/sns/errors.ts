/**
 * Errors as SNS names them. Any module may throw one; the request handler answers it as an
 * `<ErrorResponse>`.
 */

/** `code` is what the SDK maps to its exception class. */
export class SnsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly type: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
  }
}

export const invalidParameter = (what: string) => new SnsError('InvalidParameter', `Invalid parameter: ${what}`);
export const topicNotFound = () => new SnsError('NotFound', 'Topic does not exist', 404);
export const subscriptionNotFound = () => new SnsError('NotFound', 'Subscription does not exist', 404);
export const resourceNotFound = () => new SnsError('ResourceNotFound', 'Resource does not exist', 404);
/** Message attributes SNS refuses (recorded: "ParameterValueInvalid", HTTP 400). */
export const parameterValueInvalid = (message: string) => new SnsError('ParameterValueInvalid', message);
/** A required member left out, as the API's model checks it before SNS does. */
export const validationError = (message: string) => new SnsError('ValidationError', message);

/**
 * An ARN parameter that is not one: SNS names the parameter and counts the ARN's elements
 * ("Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1").
 */
export function malformedArn(parameter: string, value: string): SnsError | undefined {
  const elements = value.split(':').length;
  return elements < 6 ? invalidParameter(`${parameter} Reason: An ARN must have at least 6 elements, not ${elements}`) : undefined;
}
