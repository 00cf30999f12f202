import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { clientOptions } from './client-options';

/** Created once per cold start and reused by every invocation (the reconciler's only). */
export const logsClient = new CloudWatchLogsClient(clientOptions);
