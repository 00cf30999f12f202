import { RefusalError } from '../refusal-error';

/** One problem of a request: the field it concerns, and a sentence that names the field and says what to send. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A request whose fields break the rules. Carries every problem at once: `problems` lists them
 * one by one for programs, `message` names them all in one sentence for people.
 * shared/http/domain-errors.ts answers it as a 400 INVALID_REQUEST with the list as `errors`.
 */
export class InvalidRequestError extends RefusalError {
  override readonly name = 'InvalidRequestError';
  readonly code = 'INVALID_REQUEST';
  constructor(readonly problems: readonly FieldProblem[]) {
    super(sentenceNaming(problems));
  }
}

function sentenceNaming(problems: readonly FieldProblem[]): string {
  if (problems.length === 1) return problems[0]!.message;
  // Numbered, because a problem's own sentence may hold a semicolon.
  const listed = problems.map(({ message }, index) => `(${index + 1}) ${message.replace(/\.$/, '')}`);
  return `The request has ${problems.length} problems: ${listed.join('; ')}.`;
}
