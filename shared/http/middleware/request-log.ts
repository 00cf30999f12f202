import type { Logger } from '../../logger';
import type { HttpMiddleware, HttpResult } from '../types';

/** One structured line per request with its outcome. Never logs bodies, headers or tokens. */
export function requestLog(logger: Logger): HttpMiddleware {
  const startedAt = new WeakMap<object, number>();
  const logOutcome = (request: { context: object; response?: HttpResult | null; event: { routeKey?: string } }) => {
    const started = startedAt.get(request.context);
    logger.info('request completed', {
      route: request.event.routeKey,
      statusCode: request.response?.statusCode,
      durationMs: started === undefined ? undefined : Math.round(performance.now() - started),
    });
  };
  return {
    name: 'requestLog',
    before: (request) => {
      startedAt.set(request.context, performance.now());
    },
    after: logOutcome,
    onError: logOutcome,
  };
}
