import { SQSClient } from '@aws-sdk/client-sqs';
import { clientOptions } from './client-options';

/**
 * Created once per cold start and reused by every invocation. Locally the SDK reads
 * AWS_ENDPOINT_URL_SQS, which the local stack points at its queue stand-in.
 */
export const sqsClient = new SQSClient(clientOptions);
