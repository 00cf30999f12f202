/**
 * The access policy every subscription's topic is created with (CreateTopic's `Policy`
 * attribute, so no extra call). It denies sns:Publish to every principal but the service's own
 * publishers (the dispatcher's, the test operation's and replay's roles): no other principal of the
 * account, whatever its IAM policies allow, can make a tenant's endpoint receive a message.
 *
 * The publishers are matched by `aws:PrincipalArn` in a condition, not named as principals: a
 * role's session carries its role's ARN there, and a condition compares text, so a role that is
 * replaced under the same name keeps publishing (a `Principal` entry would be bound to the old
 * role's unique id). For an AWS service publishing on its own behalf the key is absent, and
 * `ArnNotEquals` on an absent key matches: those are denied too ("IAM JSON policy elements:
 * Condition operators"). Everything else the topic's owner may do stays with its IAM policies,
 * as without a topic policy. Topic policies: SNS developer guide, "Overview of managing access
 * in Amazon SNS" and "Example cases for Amazon SNS access control".
 */
export function topicAccessPolicy(topicArn: string, publisherArns: readonly string[]): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'OnlyTheServicePublishes',
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Resource: topicArn,
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': [...publisherArns] } },
      },
    ],
  });
}
