import type { Logger } from '../../logger';
import { isDependencyFault } from '../../aws/failures';
import { domainRefusalOf, type Refusal } from '../domain-errors';
import { errorResponse } from '../envelope';
import { HttpError } from '../errors';
import type { HttpMiddleware } from '../types';

/**
 * Seconds a caller should wait before retrying a 503 (the `Retry-After` header). A 503 means a
 * dependency stayed slow or down through the SDK budget (about 3 s per call), so an immediate
 * retry would most likely meet the same state and add to the load; a few seconds lets a brief
 * overload pass without making a caller wait long. docs/api.md, "When DynamoDB or SNS is down, slow or failing".
 */
export const RETRY_AFTER_SECONDS = 2;

/**
 * Turns any error into the API's error envelope. Only refusals show their message: HttpErrors,
 * and the domain's refusals with the status and code domain-errors.ts gives them. Every other
 * error is the service's fault and gets a generic message, so that no SDK text, ARN or stack
 * trace reaches the caller. The full error goes to the log instead.
 */
export function errorEnvelope(logger: Logger): HttpMiddleware {
  return {
    name: 'errorEnvelope',
    onError: (request) => {
      const { error } = request;
      const refusal: Refusal | undefined =
        error instanceof HttpError
          ? { statusCode: error.statusCode, code: error.code, message: error.message, details: {} }
          : domainRefusalOf(error);
      if (refusal) {
        logger.info('request refused', { statusCode: refusal.statusCode, code: refusal.code, reason: refusal.message });
        request.response = errorResponse(refusal.statusCode, refusal.message, refusal.code, refusal.details, refusal.headers);
        return;
      }
      if (isDependencyFault(error)) {
        logger.error('dependency failure', error as Error);
        request.response = errorResponse(
          503,
          'A backend service is temporarily unavailable; retry the request shortly.',
          'SERVICE_UNAVAILABLE',
          {},
          { 'retry-after': String(RETRY_AFTER_SECONDS) },
        );
        return;
      }
      logger.error('unexpected failure', error as Error);
      request.response = errorResponse(500, 'The service failed to handle the request; retry it shortly.', 'INTERNAL_ERROR');
    },
  };
}
