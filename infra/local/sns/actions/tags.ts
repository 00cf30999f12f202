/**
 * TagResource, UntagResource, ListTagsForResource, and the tag rules CreateTopic applies too.
 * Only topics exist here, so every resource is a topic; an unknown one is ResourceNotFound, as
 * in SNS.
 */
import { invalidParameter, resourceNotFound, SnsError } from '../errors';
import { el } from '../query-protocol';
import type { Tag } from '../types';
import type { Handler } from './handler';

const MAX_TAGS_PER_TOPIC = 50;

export function sameTags(a: Tag[], b: Tag[]): boolean {
  const key = (tags: Tag[]) => JSON.stringify([...tags].sort((x, y) => x.Key.localeCompare(y.Key)));
  return key(a) === key(b);
}

export function validateTags(tags: Tag[]): void {
  const keys = new Set<string>();
  for (const { Key, Value } of tags) {
    if (Key.length < 1 || Key.length > 128) throw invalidParameter('Tags Reason: tag keys must be 1-128 characters');
    if (Value.length > 256) throw invalidParameter('Tags Reason: tag values must be at most 256 characters');
    if (Key.toLowerCase().startsWith('aws:')) throw invalidParameter('Tags Reason: the aws: prefix is reserved');
    if (keys.has(Key)) throw invalidParameter('Duplicated keys are not allowed.');
    keys.add(Key);
  }
}

/** Adds or replaces tags, keeping the order in which keys first appeared. */
export function mergeTags(existing: Tag[], added: Tag[]): Tag[] {
  const merged = new Map(existing.map((tag) => [tag.Key, tag.Value]));
  for (const tag of added) merged.set(tag.Key, tag.Value);
  if (merged.size > MAX_TAGS_PER_TOPIC) {
    const message = `Could not complete request: tag quota of ${MAX_TAGS_PER_TOPIC} per resource exceeded`;
    throw new SnsError('TagLimitExceeded', message);
  }
  return [...merged].map(([Key, Value]) => ({ Key, Value }));
}

function tagsXml(tags: Tag[]): string {
  return el(
    'Tags',
    tags.map((tag) => el('member', [el('Key', tag.Key), el('Value', tag.Value)])),
  );
}

export const tagResource: Handler = (sns, params) => {
  const topic = sns.topic(params.require('ResourceArn'), resourceNotFound, 'ResourceArn');
  const tags = params.tags();
  validateTags(tags);
  topic.tags = mergeTags(topic.tags, tags);
  return [];
};

export const untagResource: Handler = (sns, params) => {
  const topic = sns.topic(params.require('ResourceArn'), resourceNotFound, 'ResourceArn');
  const removed = new Set(params.members('TagKeys'));
  topic.tags = topic.tags.filter((tag) => !removed.has(tag.Key));
  return [];
};

export const listTagsForResource: Handler = (sns, params) => {
  const topic = sns.topic(params.require('ResourceArn'), resourceNotFound, 'ResourceArn');
  return [tagsXml(topic.tags)];
};
