import { CreateTopicCommand, DeleteTopicCommand, type SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { mayHaveBeenApplied } from '../aws/failures';
import { logger } from '../logger';
import { EndpointRefusedError } from './errors';
import type { Protocol } from './model';

export interface SubscriptionTopic {
  topicArn: string;
  subscriptionArn: string;
}

/** The SNS side of subscriptions: one topic per subscription and one SNS subscription of its endpoint. */
export class SubscriptionTopics {
  constructor(
    private readonly sns: SNSClient,
    private readonly topicPrefix: string,
  ) {}

  topicNameFor(configId: string): string {
    return `${this.topicPrefix}-${configId}`;
  }

  /**
   * The ARN SNS gives the topic of `configId` when this function creates it: in the function's
   * own partition and account (from its ARN) and the SNS client's region.
   */
  async topicArnFor(configId: string, invokedFunctionArn: string): Promise<string> {
    const [, partition, , , account] = invokedFunctionArn.split(':');
    return `arn:${partition}:sns:${await this.sns.config.region()}:${account}:${this.topicNameFor(configId)}`;
  }

  /**
   * Creates the topic, tagged with its portal and config ids, and subscribes the endpoint with
   * its filter, retry and dead-letter settings (delivery-policy.ts) in the same call.
   * A failure leaves nothing behind: the topic is deleted again, also when only the answer to
   * CreateTopic was lost (by its expected ARN; deleting a topic that does not exist succeeds).
   */
  async open(
    { portalId, configId, protocol, endpoint }: { portalId: string; configId: string; protocol: Protocol; endpoint: string },
    subscriptionAttributes: Record<string, string>,
    expectedTopicArn: string,
  ): Promise<SubscriptionTopic> {
    let topicArn: string;
    try {
      topicArn = await this.createTaggedTopic(portalId, configId);
    } catch (error) {
      if (mayHaveBeenApplied(error)) await this.deleteTopicAfterFailure(expectedTopicArn);
      throw error;
    }
    try {
      const { SubscriptionArn } = await this.sns.send(
        new SubscribeCommand({
          TopicArn: topicArn,
          Protocol: protocol,
          Endpoint: endpoint,
          Attributes: subscriptionAttributes,
          ReturnSubscriptionArn: true,
        }),
      );
      return { topicArn, subscriptionArn: SubscriptionArn! };
    } catch (error) {
      await this.deleteTopicAfterFailure(topicArn);
      if ((error as Error).name === 'InvalidParameterException') {
        throw new EndpointRefusedError(protocol, { cause: error });
      }
      throw error;
    }
  }

  /**
   * Makes a record's topic (when `topicArn` is undefined: it is gone) and its endpoint's SNS
   * subscription again, for the reconciler. Both calls are idempotent in SNS: an existing topic
   * of the name, or an existing subscription of the endpoint with the same attributes, is
   * answered as it is. Unlike open(), a failure undoes nothing: the record still names the
   * topic, so it is no orphan, and the next run completes the repair.
   */
  async reopen(
    { portalId, configId, protocol, endpoint }: { portalId: string; configId: string; protocol: Protocol; endpoint: string },
    subscriptionAttributes: Record<string, string>,
    topicArn: string | undefined,
  ): Promise<SubscriptionTopic> {
    const existingOrNew = topicArn ?? (await this.createTaggedTopic(portalId, configId));
    const { SubscriptionArn } = await this.sns.send(
      new SubscribeCommand({
        TopicArn: existingOrNew,
        Protocol: protocol,
        Endpoint: endpoint,
        Attributes: subscriptionAttributes,
        ReturnSubscriptionArn: true,
      }),
    );
    return { topicArn: existingOrNew, subscriptionArn: SubscriptionArn! };
  }

  /**
   * Removes the topic, and with it its SNS subscription (SNS deletes a topic's subscriptions
   * with it). One call, so a failure leaves either both or neither. Safe to repeat: deleting
   * a topic that no longer exists succeeds.
   */
  async close({ topicArn }: Pick<SubscriptionTopic, 'topicArn'>): Promise<void> {
    await this.sns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
  }

  /** The subscription's topic, tagged with its portal and config ids so that an operator can tell whose it is. */
  private async createTaggedTopic(portalId: string, configId: string): Promise<string> {
    const { TopicArn } = await this.sns.send(
      new CreateTopicCommand({
        Name: this.topicNameFor(configId),
        // Messages signed with SHA256 rather than SNS's default SHA1; nothing else differs from
        // the defaults (no KMS key: a customer key would need grants for every publisher).
        Attributes: { SignatureVersion: '2' },
        Tags: [
          { Key: 'portalId', Value: portalId },
          { Key: 'configId', Value: configId },
        ],
      }),
    );
    return TopicArn!;
  }

  /** Undoes a topic created by a request that is failing; the original error is what the caller sees. */
  async deleteTopicAfterFailure(topicArn: string): Promise<void> {
    try {
      await this.sns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
    } catch (cleanupError) {
      // The topic is tagged with its portal and config ids, so an operator can find and remove it.
      logger.error('could not delete the topic of a failed create; it is orphaned', {
        topicArn,
        error: cleanupError as Error,
      });
    }
  }
}
