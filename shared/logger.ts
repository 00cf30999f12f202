import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Powertools' Logger with the cold start kept per handler. Powertools keeps one cold-start flag
 * per Logger and spends it on the first `addContext` (injectLambdaContext), and reports cold
 * starts at all only where Lambda says the environment starts on demand
 * (AWS_LAMBDA_INITIALIZATION_TYPE=on-demand; not for provisioned concurrency). On Lambda one
 * process runs one handler, so that is the handler's first invocation. Where the six handlers
 * share a process and this logger (npm start, the tests), the first request of any of them would
 * spend the flag for all: each handler keeps its own and hands it in (middleware/lambda-context-log.ts).
 */
export class ServiceLogger extends Logger {
  /** Whether the next `addContext` is the first invocation of its handler (Powertools still applies the initialization type). */
  nextInvocationIsFirst(first: boolean): void {
    this.coldStart = first;
  }
}

/** Structured JSON logs; level from POWERTOOLS_LOG_LEVEL (default INFO). */
export const logger = new ServiceLogger({ serviceName: 'webhook-subscriptions' });
