import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs; level from POWERTOOLS_LOG_LEVEL (default INFO). */
export const logger = new Logger({ serviceName: 'webhook-subscriptions' });
