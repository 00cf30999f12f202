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
