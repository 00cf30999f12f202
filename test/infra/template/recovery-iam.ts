/**
 * What the recovery routes and the recovery worker may do (stack-iam.ts's table, their rows): one
 * line per statement, as `<resource>: <actions>[ when <condition>]`.
 */
export function recoveryGrants(PORTALS: string, MESSAGE_LOG_WRITES: string, BUCKET: string): Record<string, string[]> {
  const RECOVERY = 'recoveryId,configId,since,until,selection,recoveryState,createdAt,updatedAt,matched,sent,failed,failures,cursor,error,leaseUntil,leaseHolder';
  return {
    recoverMessages: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem ${PORTALS}`,
      `table: dynamodb:PutItem dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringLike dynamodb:Attributes portalId,sk,${RECOVERY},idempotencyExpiresAt`,
      'table: dynamodb:DeleteItem dynamodb:GetItem dynamodb:UpdateItem when ForAllValues:StringEquals dynamodb:LeadingKeys idempotency#recoverMessagesRoute',
      'table: dynamodb:DeleteItem dynamodb:PutItem when ForAllValues:StringEquals dynamodb:LeadingKeys recovery#running and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,configId,idempotencyExpiresAt',
      BUCKET,
      'service topics: sns:GetSubscriptionAttributes',
      'recovery queue: sqs:SendMessage',
    ],
    listRecoveries: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`, BUCKET],
    runRecoveries: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:BatchGetItem dynamodb:GetItem dynamodb:Query ${PORTALS}`,
      `table: dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,${RECOVERY}`,
      'table: dynamodb:Query when ForAllValues:StringEquals dynamodb:LeadingKeys recovery#running',
      'table: dynamodb:DeleteItem when ForAllValues:StringEquals dynamodb:LeadingKeys recovery#running and ForAllValues:StringEquals dynamodb:Attributes portalId,sk',
      'service topics: sns:Publish',
      MESSAGE_LOG_WRITES,
      // Its event source's, and its next slices'.
      'recovery queue: sqs:ChangeMessageVisibility sqs:DeleteMessage sqs:GetQueueAttributes sqs:GetQueueUrl sqs:ReceiveMessage sqs:SendMessage',
    ],
  };
}
