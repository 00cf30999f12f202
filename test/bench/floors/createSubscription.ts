/** Floor of create: the portal's rate-limit token, the counter read, CreateTopic (with its access policy), Subscribe (with its attributes), the insert transaction. */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, bodyOf, ok, portalOf, takePortalToken } from './floor-http';

const DEAD_LETTER_QUEUE_ARN = process.env.DELIVERY_DEAD_LETTER_QUEUE_ARN;
const PUBLISHERS = process.env.TOPIC_PUBLISHER_ARNS!.split(',');

interface CreateBody {
  name: string;
  endpoint: string;
  protocol: string;
  events: string[];
}

export async function handler(event: FloorEvent, context: Context) {
  const portalId = portalOf(event);
  const body = bodyOf<CreateBody>(event);
  const configId = randomUUID();
  await takePortalToken(portalId, 'createSubscription');
  await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: 'portal' }, ConsistentRead: true }));
  const name = `${process.env.TOPIC_PREFIX}-${configId}`;
  const [, partition, , , account] = context.invokedFunctionArn.split(':');
  const topicArn = `arn:${partition}:sns:${process.env.AWS_REGION}:${account}:${name}`;
  const policy = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Resource: topicArn,
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': PUBLISHERS } },
      },
    ],
  };
  const { TopicArn } = await snsClient.send(
    new CreateTopicCommand({
      Name: name,
      Attributes: { Policy: JSON.stringify(policy) },
      Tags: [
        { Key: 'portalId', Value: portalId },
        { Key: 'configId', Value: configId },
      ],
    }),
  );
  const { SubscriptionArn } = await snsClient.send(
    new SubscribeCommand({
      TopicArn: TopicArn!,
      Protocol: body.protocol,
      Endpoint: body.endpoint,
      Attributes: DEAD_LETTER_QUEUE_ARN ? { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DEAD_LETTER_QUEUE_ARN }) } : undefined,
      ReturnSubscriptionArn: true,
    }),
  );
  const record = { ...body, portalId, configId, topicArn: TopicArn!, subscriptionArn: SubscriptionArn!, status: 1 };
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: TABLE_NAME,
            Key: { portalId, sk: 'portal' },
            UpdateExpression: 'ADD subscriptionCount :one',
            ConditionExpression: 'attribute_not_exists(subscriptionCount) OR subscriptionCount < :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': Number(process.env.MAX_SUBSCRIPTIONS_PER_PORTAL) },
          },
        },
        {
          Put: {
            TableName: TABLE_NAME,
            Item: { ...record, sk: `subscription#${configId}`, createdAt: new Date().toISOString() },
            ConditionExpression: 'attribute_not_exists(sk)',
          },
        },
      ],
    }),
  );
  return ok({ message: 'Subscription created.', record });
}
