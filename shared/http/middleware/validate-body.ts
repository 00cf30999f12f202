import * as z from 'zod/mini';
import { type FieldProblem, InvalidRequestError } from '../errors';
import type { HttpMiddleware } from '../types';

/** Where in the body an issue is, as a person would write it: `events[0]`, `name`. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('');
}

/**
 * One issue as a sentence that starts with the field: the schemas word their messages as what
 * follows the field's name ("is required.", "must be a string.").
 */
function problemOf(issue: z.core.$ZodIssue): FieldProblem {
  const field = fieldOf(issue.path);
  return { field, message: field ? `${field} ${issue.message}` : issue.message };
}

/**
 * Validates `context.requestBody` against the operation's schema and replaces it with the
 * schema's output (trimmed, normalized, unknown fields dropped). A body that breaks the rules
 * is refused with every problem at once (InvalidRequestError).
 */
export function validateBody(schema: z.ZodMiniType): HttpMiddleware {
  return {
    name: 'validateBody',
    before: (request) => {
      const result = z.safeParse(schema, request.context.requestBody);
      if (!result.success) {
        const problems = result.error.issues.map(problemOf);
        throw new InvalidRequestError(problems.length > 0 ? problems : [{ field: '', message: 'The request body is invalid.' }]);
      }
      request.context.requestBody = result.data;
    },
  };
}
