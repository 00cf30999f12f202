/**
 * Which portal a topic's subscription belongs to. SNS's delivery status record names the topic
 * (so the subscription: `<prefix>-<configId>`) but not the portal, whose partition holds it; every
 * topic is tagged with its portal at CreateTopic (shared/subscriptions/topics.ts), and a topic's
 * portal never changes, so one ListTagsForResource per topic and warm function suffices. The
 * record read after it (store.ts) checks that portal's subscription has that very topic: a tag
 * cannot lead attempts into another portal's partition.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { ListTagsForResourceCommand } from '../aws/sns-commands';

/** Topics remembered per warm function; past this the oldest is forgotten (and asked again when needed). */
const REMEMBERED = 10_000;

export class TopicOwners {
  private readonly portals = new Map<string, string | undefined>();

  constructor(private readonly sns: SNSClient) {}

  /** The portal the topic is tagged with; undefined when the topic is gone or untagged. */
  async portalOf(topicArn: string): Promise<string | undefined> {
    if (this.portals.has(topicArn)) return this.portals.get(topicArn);
    let portalId: string | undefined;
    try {
      const { Tags } = await this.sns.send(new ListTagsForResourceCommand({ ResourceArn: topicArn }));
      portalId = Tags?.find((tag) => tag.Key === 'portalId')?.Value;
    } catch (error) {
      if ((error as Error).name === 'ResourceNotFoundException' || (error as Error).name === 'NotFoundException') return undefined;
      throw error;
    }
    if (portalId === undefined) return undefined;
    if (this.portals.size >= REMEMBERED) this.portals.delete(this.portals.keys().next().value!);
    this.portals.set(topicArn, portalId);
    return portalId;
  }
}
