/**
 * Refusals of the HTTP layer itself (the body's encoding, headers, the token's claims,
 * idempotency), with their status and code. Their message is shown to the caller as is, so it
 * must say what to fix and name no internals. The domain's refusals get their status and code
 * from domain-errors.ts; any other error is the service's fault and is answered with a generic
 * 5xx (middleware/error-envelope.ts).
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string, code = 'BAD_REQUEST', options?: ErrorOptions) {
    super(400, message, code, options);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message: string, code = 'UNAUTHORIZED') {
    super(401, message, code);
  }
}

/** The request conflicts with another one still being processed; retrying it shortly succeeds. */
export class ConflictError extends HttpError {
  constructor(message: string, code = 'CONFLICT') {
    super(409, message, code);
  }
}
