/**
 * The access policy every subscription's topic is created with (CreateTopic's `Policy`
 * attribute, so no extra call). Three Deny statements, so that no other principal of the
 * account, whatever its IAM policies allow, can reach or rewire a tenant's endpoint:
 * - sns:Publish to every principal but the service's publishers (the dispatcher's, the test
 *   operation's and replay's roles);
 * - sns:Subscribe and the actions that change or remove the topic or its policy
 *   (SetTopicAttributes, AddPermission, RemovePermission, DeleteTopic) to every principal but the
 *   service's topic managers (create, confirm, delete and the reconciler: the roles IAM grants
 *   any of these) and the account's root user, who stays able to repair or remove a topic if
 *   the managers' roles are ever replaced under new names (an explicit Deny in a topic policy
 *   binds every other principal of the account, administrators included);
 * - Publish and those actions when the request is not made over TLS (aws:SecureTransport
 *   false), as the SNS developer guide's security best practices show for Publish ("Enforce
 *   encryption of data in transit"). The actions are named, not `sns:*`: the guide's example names
 *   its action, and these are all that reach or rewire an endpoint.
 *
 * The principals are matched by `aws:PrincipalArn` in a condition, not named as principals: a
 * role's session carries its role's ARN there, and a condition compares text, so a role that is
 * replaced under the same name keeps its access (a `Principal` entry would be bound to the old
 * role's unique id). For an AWS service acting on its own behalf the key is absent, and
 * `ArnNotEquals` on an absent key matches: those are denied too ("IAM JSON policy elements:
 * Condition operators"). Everything else the topic's owner may do stays with its IAM policies,
 * as without a topic policy. Topic policies: SNS developer guide, "Overview of managing access
 * in Amazon SNS" and "Example cases for Amazon SNS access control".
 */
import { createHash } from 'node:crypto';

/** The actions only the service's topic managers may take on a topic (the Deny's list). */
export const MANAGEMENT_ACTIONS = ['sns:Subscribe', 'sns:SetTopicAttributes', 'sns:AddPermission', 'sns:RemovePermission', 'sns:DeleteTopic'] as const;

/** The root user of the topic's account (`arn:<partition>:iam::<account>:root`), from its ARN. */
export function accountRootOf(topicArn: string): string {
  const [, partition, , , account] = topicArn.split(':');
  return `arn:${partition}:iam::${account}:root`;
}

export function topicAccessPolicy(topicArn: string, publisherArns: readonly string[], managerArns: readonly string[]): string {
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
      {
        Sid: 'OnlyTheServiceSubscribesAndManages',
        Effect: 'Deny',
        Principal: '*',
        Action: [...MANAGEMENT_ACTIONS],
        Resource: topicArn,
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': [...managerArns, accountRootOf(topicArn)] } },
      },
      {
        Sid: 'OnlyOverTls',
        Effect: 'Deny',
        Principal: '*',
        Action: ['sns:Publish', ...MANAGEMENT_ACTIONS],
        Resource: topicArn,
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ],
  });
}

/**
 * What a record remembers of the access policy its topic was given by the reconciler (attribute
 * TOPIC_POLICY_ATTRIBUTE): the policy's version and a digest of the principals it names. A record
 * whose mark differs has its topic's policy set again (shared/reconciliation/reconcile.ts), so
 * topics made before a statement or a principal was added get it.
 */
export const TOPIC_POLICY_ATTRIBUTE = 'topicPolicy';
const TOPIC_POLICY_VERSION = 2;
export function topicPolicyMarkOf({ publisherArns, managerArns }: TopicPolicyPrincipals): string {
  const digest = createHash('sha256').update(JSON.stringify([publisherArns, managerArns])).digest('hex').slice(0, 16);
  return `${TOPIC_POLICY_VERSION}|${digest}`;
}

/** The principals a topic's access policy names. */
export interface TopicPolicyPrincipals {
  readonly publisherArns: readonly string[];
  readonly managerArns: readonly string[];
}
