import type { SNSClient } from '@aws-sdk/client-sns';
import { CreateTopicCommand, DeleteTopicCommand, SubscribeCommand } from '../aws/sns-commands';
import { mayHaveBeenApplied } from '../aws/failures';
import { isRefusal, SnsRefusedServiceError } from '../aws/refusals';
import { logger } from '../logger';
import { EndpointRefusedError } from './errors';
import type { Protocol } from './model';
import { type Bound, bindOperations, type Operation } from '../data/bound-operations';
import { type DeliveryStatusLogging, deliveryStatusAttributes } from './delivery-status';
import { topicAccessPolicy } from './topic-policy';

export interface SubscriptionTopic {
  topicArn: string;
  subscriptionArn: string;
}

type Endpoint = { protocol: Protocol; endpoint: string };

/**
 * Whether SNS refused Subscribe because of the endpoint itself: an InvalidParameter that names the
 * endpoint ("Invalid parameter: Endpoint ...", "... Email address", "... SQS endpoint ARN",
 * "... Lambda endpoint ARN"). One about the attributes, the topic or the protocol is the service's.
 */
function isEndpointRefusal(error: unknown): boolean {
  const { name, message } = error as Error;
  return name === 'InvalidParameterException' && /endpoint|email address/i.test(message) && !/Attributes|Policy|TopicArn/.test(message);
}

/**
 * The caller's error for a failed Subscribe: the endpoint's refusal, the service's
 * (shared/aws/refusals.ts), or the failure as it is (throttling, 5xx, a lost answer: 503).
 */
function subscribeFailure(error: unknown, protocol: Protocol): unknown {
  if (isEndpointRefusal(error)) return new EndpointRefusedError(protocol, { cause: error });
  if (isRefusal(error)) return new SnsRefusedServiceError('Subscribe', error);
  return error;
}

/**
 * The SNS client the topics are made with, the prefix of their names, and the principals their
 * access policy lets publish (topic-policy.ts; needed only by the functions that create topics).
 */
export interface TopicSettings {
  readonly sns: SNSClient;
  readonly topicPrefix: string;
  readonly publisherArns?: readonly string[];
  /** The principals it lets subscribe and change or delete the topic (topic-policy.ts). */
  readonly managerArns?: readonly string[];
  /** Delivery status logging every topic is made with (delivery-status.ts); none when unset. */
  readonly deliveryStatus?: DeliveryStatusLogging;
}

export function topicNameFor({ topicPrefix }: TopicSettings, configId: string): string {
  return `${topicPrefix}-${configId}`;
}

/**
 * The ARN SNS gives the topic of `configId` when this function creates it: in the function's
 * own partition and account (from its ARN) and the SNS client's region.
 */
export async function topicArnFor(settings: TopicSettings, configId: string, invokedFunctionArn: string): Promise<string> {
  const [, partition, , , account] = invokedFunctionArn.split(':');
  return `arn:${partition}:sns:${await settings.sns.config.region()}:${account}:${topicNameFor(settings, configId)}`;
}

/**
 * Creates the topic, tagged with its portal and config ids and with its access policy, and
 * subscribes the endpoint with its retry and dead-letter settings (delivery-policy.ts) in the
 * same call. A failure leaves nothing behind: the topic is deleted again, also when only the
 * answer to CreateTopic was lost (by its expected ARN; deleting a topic that does not exist
 * succeeds).
 */
export async function open(
  settings: TopicSettings,
  { portalId, configId, protocol, endpoint }: { portalId: string; configId: string } & Endpoint,
  subscriptionAttributes: Record<string, string>,
  expectedTopicArn: string,
): Promise<SubscriptionTopic> {
  let topicArn: string;
  try {
    topicArn = await createTopic(settings, portalId, configId, expectedTopicArn);
  } catch (error) {
    if (mayHaveBeenApplied(error)) await deleteTopicAfterFailure(settings, expectedTopicArn);
    throw error;
  }
  try {
    return { topicArn, subscriptionArn: await subscribe(settings, topicArn, { protocol, endpoint }, subscriptionAttributes) };
  } catch (error) {
    await deleteTopicAfterFailure(settings, topicArn);
    throw error;
  }
}

/**
 * Makes a record's lost topic again, with the subscription of its endpoint, for the
 * reconciler: the topic went, and its subscriptions with it, by no choice of the endpoint.
 * Both calls are idempotent in SNS. Unlike open(), a failure undoes nothing: the record still
 * names the topic, so it is no orphan, and the next run completes the repair.
 */
export async function reopen(
  settings: TopicSettings,
  { portalId, configId, protocol, endpoint }: { portalId: string; configId: string } & Endpoint,
  subscriptionAttributes: Record<string, string>,
  topicArn: string,
): Promise<SubscriptionTopic> {
  const created = await createTopic(settings, portalId, configId, topicArn);
  return { topicArn: created, subscriptionArn: await subscribe(settings, created, { protocol, endpoint }, subscriptionAttributes) };
}

/**
 * Makes a record's lost topic again without subscribing anything, for the reconciler, when the
 * endpoint cannot be subscribed again: its password was kept only by the subscription that went
 * with the topic (docs/security.md, "Endpoint credentials"). Idempotent in SNS.
 */
export async function recreateTopic(
  settings: TopicSettings,
  { portalId, configId }: { portalId: string; configId: string },
  topicArn: string,
): Promise<string> {
  return createTopic(settings, portalId, configId, topicArn);
}

/**
 * Subscribes the endpoint to its existing topic again, for `POST /confirm`; SNS sends the
 * endpoint a new confirmation request. `attributes` only for a subscription SNS no longer has:
 * a pending one is answered as it is (with the attributes it was made with), and giving others
 * would be refused.
 */
export async function subscribeAgain(settings: TopicSettings, topicArn: string, endpoint: Endpoint, attributes: Record<string, string> | undefined): Promise<string> {
  return subscribe(settings, topicArn, endpoint, attributes);
}

/**
 * Removes the topic, and with it its SNS subscription (SNS deletes a topic's subscriptions
 * with it). One call, so a failure leaves either both or neither. Safe to repeat: deleting
 * a topic that no longer exists succeeds.
 */
export async function close({ sns }: TopicSettings, { topicArn }: Pick<SubscriptionTopic, 'topicArn'>): Promise<void> {
  await sns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
}

/** Undoes a topic created by a request that is failing; the original error is what the caller sees. */
export async function deleteTopicAfterFailure({ sns }: TopicSettings, topicArn: string): Promise<void> {
  try {
    await sns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
  } catch (cleanupError) {
    // The topic is tagged with its portal and config ids, so an operator can find and remove it.
    logger.error('could not delete the topic of a failed create; it is orphaned', {
      topicArn,
      error: cleanupError as Error,
    });
  }
}

async function subscribe({ sns }: TopicSettings, topicArn: string, { protocol, endpoint }: Endpoint, attributes: Record<string, string> | undefined): Promise<string> {
  try {
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn, Protocol: protocol, Endpoint: endpoint, Attributes: attributes, ReturnSubscriptionArn: true }),
    );
    return SubscriptionArn!;
  } catch (error) {
    throw subscribeFailure(error, protocol);
  }
}

/**
 * The subscription's topic, tagged with its portal and config ids so that an operator can
 * tell whose it is, and with the access policy that lets only the service publish.
 */
async function createTopic(settings: TopicSettings, portalId: string, configId: string, topicArn: string): Promise<string> {
  const publisherArns = settings.publisherArns ?? [];
  if (publisherArns.length === 0) throw new Error('no topic publishers configured (TOPIC_PUBLISHER_ARNS)');
  const managerArns = settings.managerArns ?? [];
  if (managerArns.length === 0) throw new Error('no topic managers configured (TOPIC_MANAGER_ARNS)');
  try {
    const { TopicArn } = await settings.sns.send(
      new CreateTopicCommand({
        Name: topicNameFor(settings, configId),
        // Messages signed with SHA256 rather than SNS's default SHA1; no KMS key: a customer
        // key would need grants for every publisher.
        // Delivery status logging in the same call, so no topic of the service is ever without it.
        Attributes: {
          SignatureVersion: '2',
          Policy: topicAccessPolicy(topicArn, publisherArns, managerArns),
          ...(settings.deliveryStatus && deliveryStatusAttributes(settings.deliveryStatus)),
        },
        Tags: [
          { Key: 'portalId', Value: portalId },
          { Key: 'configId', Value: configId },
        ],
      }),
    );
    return TopicArn!;
  } catch (error) {
    throw isRefusal(error) ? new SnsRefusedServiceError('CreateTopic', error) : error;
  }
}

const TOPIC_OPERATIONS = { topicNameFor, topicArnFor, open, reopen, recreateTopic, subscribeAgain, close, deleteTopicAfterFailure };

/**
 * The SNS side of subscriptions: one topic per subscription and one SNS subscription of its
 * endpoint. Every operation, bound to one client and prefix; the domain takes the ones it uses
 * (a Pick of this), and each function binds only those (topicsOf; shared/data/bound-operations.ts says why).
 */
export type SubscriptionTopics = Bound<TopicSettings, typeof TOPIC_OPERATIONS>;

/** The operations named, bound to `settings`: `topicsOf(settings, { close })`. */
export const topicsOf = <Operations extends { [Name in keyof Operations]: Operation<TopicSettings> }>(settings: TopicSettings, operations: Operations) =>
  bindOperations(settings, operations);

/** Every operation on the topics: for the reconciler and the suites, which use most of them. */
export function subscriptionTopics(
  sns: SNSClient,
  topicPrefix: string,
  publisherArns: readonly string[] = [],
  managerArns: readonly string[] = [],
): SubscriptionTopics {
  return topicsOf({ sns, topicPrefix, publisherArns, managerArns }, TOPIC_OPERATIONS);
}
