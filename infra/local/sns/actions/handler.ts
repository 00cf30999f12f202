/**
 * What an action handler is, and the paging the listing actions share. Handlers check their
 * parameters as SNS does, change the backend, and return the elements of the action's
 * `<…Result>`.
 */
import { invalidParameter } from '../errors';
import type { QueryParams } from '../query-protocol';
import type { SnsBackend } from '../state';

/** SNS pages every listing at 100 entries. */
const PAGE_SIZE = 100;

export interface RequestFacts {
  /** Signed with SigV4 (SDK, CLI), as opposed to a bare URL visit such as a SubscribeURL. */
  signed: boolean;
  /** The access key id of the signature's credential scope; it names the request's principal (topic-policy.ts). */
  accessKeyId?: string;
}

export type Handler = (sns: SnsBackend, params: QueryParams, request: RequestFacts) => readonly string[] | undefined;

/** One page of records in creation order; the token names the last record's position. */
export function page<T extends { seq: number }>(records: T[], params: QueryParams): { items: T[]; nextToken?: string } {
  const token = params.get('NextToken');
  let after = 0;
  if (token) {
    after = Number(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(after) || after < 1) throw invalidParameter('NextToken');
  }
  const remaining = records.filter((record) => record.seq > after).sort((a, b) => a.seq - b.seq);
  const items = remaining.slice(0, PAGE_SIZE);
  const last = items.at(-1);
  if (remaining.length <= PAGE_SIZE || !last) return { items };
  return { items, nextToken: Buffer.from(String(last.seq)).toString('base64url') };
}
