import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { sqsClient } from '../shared/aws/sqs';
import { recoverMessagesRequest } from '../shared/contract/request-bodies';
import { messageKeepDays, recoveryQueueUrl, tableName } from '../shared/environment';
import { idempotentRuns } from '../shared/http/idempotency';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation, sendLimitPerPortal } from '../shared/http/operation';
import { recoverMessagesRoute } from '../shared/operations';
import { recoveryJobsOn } from '../shared/recoveries/jobs';
import { startRecoveryOf } from '../shared/recoveries/start';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';

const table = { db: documentClient, tableName };
const deps = {
  table,
  repository: repositoryOf(table, { find }),
  sns: snsClient,
  jobs: recoveryQueueUrl === undefined ? undefined : recoveryJobsOn(sqsClient, recoveryQueueUrl),
  keepDays: messageKeepDays,
};

/**
 * Starts a recovery of the subscription's messages of a window (docs/messages.md, "Recover"): stores
 * it and queues its first slice, and answers 202 at once; the worker (functions/runRecoveries.ts)
 * sends. With an Idempotency-Key header, a retry gets the first answer and starts nothing.
 */
export const handler = httpOperation(recoverMessagesRoute, {
  portalLimit: sendLimitPerPortal,
  body: jsonInput(recoverMessagesRequest),
  idempotency: idempotentRuns({ client: documentClient, tableName, operationId: 'recoverMessagesRoute' }),
  successStatus: 202,
  run: async ({ portalId, body }) => {
    const recovery = await startRecoveryOf(deps, portalId, body);
    return { message: 'Recovery started; GET /recoveries shows how far it got.', ...recovery, state: 'running' };
  },
});
