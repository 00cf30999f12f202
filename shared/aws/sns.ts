import { SNSClient } from '@aws-sdk/client-sns';
import { clientOptions } from './client-options';

/** Created once per cold start and reused by every invocation. */
export const snsClient = new SNSClient(clientOptions);
