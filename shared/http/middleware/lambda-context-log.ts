import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { ServiceLogger } from '../../logger';
import type { HttpMiddleware } from '../types';

/**
 * Powertools' injectLambdaContext (request id, function name, cold_start on every log line;
 * keys appended during a request reset after it), with `cold_start` true on the first
 * invocation of this handler and false after, also where handlers share a process and a logger
 * (see ServiceLogger). One per handler: the flag lives in this closure.
 */
export function lambdaContextLog(logger: ServiceLogger): HttpMiddleware {
  const inject = injectLambdaContext(logger, { resetKeys: true });
  let firstInvocation = true;
  return {
    ...inject,
    name: 'lambdaContextLog',
    before: (request) => {
      // In one synchronous step with addContext, so a concurrent request of another handler
      // cannot slip in between.
      logger.nextInvocationIsFirst(firstInvocation);
      firstInvocation = false;
      return inject.before?.(request);
    },
  };
}
