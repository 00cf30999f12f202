import * as z from 'zod/mini';
import { BadRequestError } from '../errors';
import type { HttpMiddleware } from '../types';

/** Describes the first problem in a sentence that names the field, e.g. "name: must be ...". */
function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

/**
 * Validates `context.requestBody` against the operation's schema and replaces it with the
 * schema's output (trimmed, normalized, unknown fields dropped).
 */
export function validateBody(schema: z.ZodMiniType): HttpMiddleware {
  return {
    name: 'validateBody',
    before: (request) => {
      const result = z.safeParse(schema, request.context.requestBody);
      if (!result.success) {
        const [first] = result.error.issues;
        throw new BadRequestError(first ? describeIssue(first) : 'The request body is invalid.', 'INVALID_REQUEST');
      }
      request.context.requestBody = result.data;
    },
  };
}
