/**
 * What the stack tells its operator after `cdk deploy`: the API's URL, the bus to put portal events
 * on, the queues and alarm topic to watch, the dashboard and the table (docs/deploy.md, docs/operations.md).
 */
import { CfnOutput } from 'aws-cdk-lib';
import { PORTAL_EVENT_SOURCE } from '../../shared/delivery/portal-event';
import type { Stack } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { OperatorAlarms } from './operator-alarms';
import type { OperatorDashboard } from './operator-dashboard';
import type { PortalEventDelivery } from './portal-event-delivery';

/** What of the stack its outputs name. */
interface OutputSources extends Stack {
  readonly stage: HttpStage;
  readonly delivery: PortalEventDelivery;
  readonly alarms: OperatorAlarms;
  readonly dashboard: OperatorDashboard;
  readonly table: Table;
}

export function addStackOutputs(stack: OutputSources): void {
  new CfnOutput(stack, 'ApiUrl', {
    description: 'Base URL of the API; the routes are under v7/webhooks/public/api/subscriptions and webhooks/api/subscriptions.',
    value: stack.stage.url,
  });
  new CfnOutput(stack, 'EventBusName', {
    description: `EventBridge bus of portal events (source ${PORTAL_EVENT_SOURCE}, detail-type = event kind, detail.portalId).`,
    value: stack.delivery.bus.eventBusName,
  });
  new CfnOutput(stack, 'DeliveryDeadLetterQueueUrl', {
    description: 'SQS queue of the messages SNS could not deliver after its retries.',
    value: stack.delivery.deliveryDeadLetterQueue.queueUrl,
  });
  new CfnOutput(stack, 'DeadLettersByPortalQueueUrl', {
    description: 'SQS fair queue of the same messages keyed by portal, which the dead-letter recorder consumes.',
    value: stack.delivery.deadLettersByPortal.queueUrl,
  });
  new CfnOutput(stack, 'EventsDeadLetterQueueUrl', {
    description: 'SQS queue of the portal events the dispatcher failed on repeatedly.',
    value: stack.delivery.eventsDeadLetterQueue.queueUrl,
  });
  new CfnOutput(stack, 'OperatorAlarmTopicArn', {
    description: 'SNS topic of the operator alarms (dead letters waiting, consumer errors, scheduled jobs failing or not running): subscribe to it; docs/operations.md.',
    value: stack.alarms.topic.topicArn,
  });
  new CfnOutput(stack, 'OperatorDashboardName', {
    description: 'CloudWatch dashboard of the service (events, deliveries, dead letters, retries, errors): how to read it, docs/operations.md.',
    value: stack.dashboard.dashboard.dashboardName,
  });
  new CfnOutput(stack, 'TableName', {
    description: 'DynamoDB table of the subscription records (kept by cdk destroy).',
    value: stack.table.tableName,
  });
}
