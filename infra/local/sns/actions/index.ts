/** Every SNS action the emulator answers, by name: the table the request handler dispatches on. */
import type { Handler } from './handler';
import { publish, publishBatch } from './publish';
import {
  confirmSubscription,
  getSubscriptionAttributes,
  listSubscriptions,
  listSubscriptionsByTopic,
  setSubscriptionAttributes,
  subscribe,
  unsubscribe,
} from './subscriptions';
import { listTagsForResource, tagResource, untagResource } from './tags';
import { createTopic, deleteTopic, getTopicAttributes, listTopics, setTopicAttributes } from './topics';

/** `writes` marks the actions whose success is saved to the state file. */
export const ACTIONS: Record<string, { run: Handler; writes: boolean }> = {
  CreateTopic: { run: createTopic, writes: true },
  DeleteTopic: { run: deleteTopic, writes: true },
  GetTopicAttributes: { run: getTopicAttributes, writes: false },
  SetTopicAttributes: { run: setTopicAttributes, writes: true },
  Subscribe: { run: subscribe, writes: true },
  ConfirmSubscription: { run: confirmSubscription, writes: true },
  Unsubscribe: { run: unsubscribe, writes: true },
  GetSubscriptionAttributes: { run: getSubscriptionAttributes, writes: false },
  SetSubscriptionAttributes: { run: setSubscriptionAttributes, writes: true },
  ListTopics: { run: listTopics, writes: false },
  ListSubscriptions: { run: listSubscriptions, writes: false },
  ListSubscriptionsByTopic: { run: listSubscriptionsByTopic, writes: false },
  Publish: { run: publish, writes: false },
  PublishBatch: { run: publishBatch, writes: false },
  TagResource: { run: tagResource, writes: true },
  UntagResource: { run: untagResource, writes: true },
  ListTagsForResource: { run: listTagsForResource, writes: false },
};

/**
 * What a bare URL may do: SNS hands out SubscribeURL and UnsubscribeURL for exactly these.
 * Everything else needs a signed request (the SDK and CLI always sign, dummy credentials will
 * do). A web page can POST a form to 127.0.0.1 but cannot add an Authorization header without
 * a CORS preflight the emulator never grants, so a browser cannot drive the emulator into
 * subscribing and then calling arbitrary URLs.
 */
export const UNSIGNED_ACTIONS = new Set(['ConfirmSubscription', 'Unsubscribe']);
