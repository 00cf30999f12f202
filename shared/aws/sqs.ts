import { SQSClient } from '@aws-sdk/client-sqs';
import { clientOptions } from './client-options';

/**
 * Created once per cold start and reused by every invocation. Its endpoint is the SDK's: the
 * region's on AWS (the queue is in the function's own region), AWS_ENDPOINT_URL_SQS locally, the
 * local stack's stand-in. Not the queue URL's host (useQueueUrlAsEndpoint, on by default), so a
 * local queue URL need not name the stand-in's port.
 */
export const sqsClient = new SQSClient({ ...clientOptions, useQueueUrlAsEndpoint: false });
