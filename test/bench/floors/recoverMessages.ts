/**
 * Floor of POST /recover: the portal's rate-limit token, GetItem (find the record),
 * GetSubscriptionAttributes (only a confirmed endpoint gets it), the recovery and its running entry
 * in one TransactWriteItems, and its first job on the recovery queue (SendMessage).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetSubscriptionAttributesCommand } from '@aws-sdk/client-sns';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { sqsClient } from '../../../shared/aws/sqs';
import { type FloorEvent, TABLE_NAME, bodyOf, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const { config_id: configId, since } = bodyOf<{ config_id: string; since: string }>(event);
  await takePortalToken(portalId, 'recoverMessages');
  const { Item } = await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }));
  await snsClient.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: Item!.subscriptionArn }));
  const recoveryId = randomUUID();
  const until = new Date().toISOString();
  const expiry = Math.floor(Date.now() / 1000) + 30 * 86_400;
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: TABLE_NAME, Item: { portalId, sk: `recovery#${configId}#${recoveryId}`, recoveryId, configId, since, until, recoveryState: 'running', idempotencyExpiresAt: expiry } } },
        { Put: { TableName: TABLE_NAME, Item: { portalId: 'recovery#running', sk: `${portalId}#${recoveryId}`, configId, idempotencyExpiresAt: expiry } } },
      ],
    }),
  );
  await sqsClient.send(new SendMessageCommand({ QueueUrl: process.env.RECOVERY_QUEUE_URL, MessageBody: JSON.stringify({ portalId, configId, recoveryId }), MessageGroupId: portalId }));
  return { ...ok({ message: 'Recovery started.', recoveryId, configId, since, until, status: 'failed', state: 'running' }), statusCode: 202 };
}
