/**
 * Errors a caller can act on. Their message is shown to the caller as is, so it must say what
 * to fix and name no internals. Anything that is not an HttpError is the service's fault and
 * is answered with a generic 5xx (see middleware/error-envelope.ts).
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

/** One problem of a request: the field it concerns, and a sentence that names the field and says what to send. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A request whose fields break the rules. Carries every problem at once: `errors` lists them
 * one by one for programs, `message` names them all in one sentence for people.
 */
export class InvalidRequestError extends BadRequestError {
  constructor(readonly errors: readonly FieldProblem[]) {
    super(sentenceNaming(errors), 'INVALID_REQUEST');
  }
}

function sentenceNaming(problems: readonly FieldProblem[]): string {
  if (problems.length === 1) return problems[0]!.message;
  // Numbered, because a problem's own sentence may hold a semicolon.
  const listed = problems.map(({ message }, index) => `(${index + 1}) ${message.replace(/\.$/, '')}`);
  return `The request has ${problems.length} problems: ${listed.join('; ')}.`;
}
