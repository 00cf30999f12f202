/**
 * The request body each operation reads: its validator compiled from schemas.ts at build time
 * (generated/), what the service accepts beyond the schema made what the schema takes, the two
 * checks a JSON Schema cannot express, and the normalized value the operation receives: names
 * trimmed, protocols lower-case, events without repeats, `config_id`/`configId` merged into
 * `configId` (lower-case), unknown fields dropped.
 *
 * Each reader is one call marked pure, so a handler's bundle keeps only its own body's validator
 * and checks (esbuild drops the others).
 */
import { eventKinds } from '../environment';
import { type FilterPolicy, filterPolicyProblem, placeOf } from '../filters/filter-policy';
import type { Protocol, SubscriptionStatus } from '../subscriptions/model';
import { type BodyCheck, type BodyOf, bodyReader } from './body-reader';
import { DEFAULT_ATTEMPTS_PAGE, DEFAULT_DEAD_LETTERS_PAGE, DEFAULT_MESSAGES_PAGE } from './dead-letter-limits';
import * as listAttemptsSchema from './generated/list-attempts-query';
import * as listMessagesSchema from './generated/list-messages-query';
import * as activateSchema from './generated/activate-subscription-request';
import * as confirmSchema from './generated/confirm-subscription-request';
import * as createSchema from './generated/create-subscription-request';
import * as listDeadLettersSchema from './generated/list-dead-letters-query';
import * as replaySchema from './generated/replay-dead-letters-request';
import * as resendSchema from './generated/resend-message-request';
import * as renameSchema from './generated/rename-subscription-request';
import * as testSchema from './generated/test-subscription-request';
import * as testFilterSchema from './generated/test-filter-request';
import * as updateSchema from './generated/update-subscription-request';

/** How many unknown kinds a refusal quotes; the rest are counted. */
const UNKNOWN_KINDS_QUOTED = 5;

/** The schema's enum is lower-case; the service takes any letter case (the schema's description says so). */
const lowerCaseProtocol = (body: Record<string, unknown>) =>
  typeof body.protocol === 'string' ? { ...body, protocol: body.protocol.toLowerCase() } : body;

/**
 * The catalog is this deployment's configuration (EVENT_KINDS), not the schema's: the OpenAPI
 * document lists it as an enum, built for the deployment. Checked beside the list's own rules,
 * so that a list too long and with unknown kinds gets both answers.
 */
const eventsInCatalog: BodyCheck<{ events?: unknown }> = {
  reads: [],
  reported: 'field',
  check({ events }) {
    if (!Array.isArray(events) || events.length === 0 || !events.every((kind) => typeof kind === 'string')) return undefined;
    const unknown = [...new Set((events as string[]).filter((kind) => !eventKinds.includes(kind)))];
    if (unknown.length === 0) return undefined;
    const quoted = unknown.slice(0, UNKNOWN_KINDS_QUOTED).map((kind) => JSON.stringify(kind.slice(0, 100)));
    const more = unknown.length > UNKNOWN_KINDS_QUOTED ? ` and ${unknown.length - UNKNOWN_KINDS_QUOTED} more` : '';
    return {
      field: 'events',
      problem:
        `${unknown.length === 1 ? 'holds an unknown event kind' : 'hold unknown event kinds'} ${quoted.join(', ')}${more}; ` +
        `allowed kinds are ${eventKinds.join(', ')}.`,
    };
  },
};

/**
 * A filter in SNS's filter-policy language, within SNS's limits: what the schema cannot say (it
 * only takes an object). The refusal names the part of the filter, `filter.brand[0].regex`.
 */
const filterInLanguage: BodyCheck<{ filter?: unknown }> = {
  reads: ['filter'],
  reported: 'field',
  check({ filter }) {
    if (filter === undefined || filter === null) return undefined;
    const problem = filterPolicyProblem(filter);
    return problem && { field: placeOf('filter', problem.at), problem: problem.problem };
  },
};

type Addressing = { config_id?: string; configId?: string };

/** Two values a JSON Schema cannot compare: `config_id` and its alias may both be sent only when they agree. */
const aliasesAgree: BodyCheck<Addressing> = {
  reads: ['config_id', 'configId'],
  reported: 'across',
  check({ config_id, configId: alias }) {
    return config_id !== undefined && alias !== undefined && config_id.toLowerCase() !== alias.toLowerCase()
      ? { field: 'config_id', problem: 'and configId name different subscriptions; send the id in config_id only.' }
      : undefined;
  },
};

const addressed = ({ config_id, configId: alias }: Addressing) => (config_id ?? alias)!.toLowerCase();
const withoutRepeats = (events: readonly string[]) => [...new Set(events)];

export interface CreateSubscriptionRequest {
  name: string;
  endpoint: string;
  protocol: Protocol;
  events: string[];
  maxReceivesPerSecond?: number;
  filter?: FilterPolicy;
}

export const createSubscriptionRequest = /* @__PURE__ */ bodyReader(createSchema, {
  prepare: lowerCaseProtocol,
  checks: [eventsInCatalog, filterInLanguage],
  output: ({ name, endpoint, protocol, events, maxReceivesPerSecond, filter }: CreateSubscriptionRequest): CreateSubscriptionRequest => ({
    name: name.trim(),
    endpoint,
    protocol,
    events: withoutRepeats(events),
    ...(maxReceivesPerSecond !== undefined && { maxReceivesPerSecond }),
    ...(filter !== undefined && { filter }),
  }),
});

export const updateSubscriptionRequest = /* @__PURE__ */ bodyReader(updateSchema, {
  checks: [eventsInCatalog, filterInLanguage, aliasesAgree],
  output: (body: Addressing & { events?: string[]; maxReceivesPerSecond?: number | null; filter?: FilterPolicy | null }) => ({
    events: body.events && withoutRepeats(body.events),
    maxReceivesPerSecond: body.maxReceivesPerSecond,
    filter: body.filter,
    configId: addressed(body),
  }),
});

export const activateSubscriptionRequest = /* @__PURE__ */ bodyReader(activateSchema, {
  checks: [aliasesAgree],
  output: (body: Addressing & { status: SubscriptionStatus }) => ({ status: body.status, configId: addressed(body) }),
});

export const renameSubscriptionRequest = /* @__PURE__ */ bodyReader(renameSchema, {
  checks: [aliasesAgree],
  output: (body: Addressing & { name: string }) => ({ name: body.name.trim(), configId: addressed(body) }),
});

export const testSubscriptionRequest = /* @__PURE__ */ bodyReader(testSchema, {
  checks: [aliasesAgree],
  output: (body: Addressing) => ({ configId: addressed(body) }),
});

export const testFilterRequest = /* @__PURE__ */ bodyReader(testFilterSchema, {
  checks: [filterInLanguage],
  output: (body: { filter: FilterPolicy; data: Record<string, unknown> }) => ({ filter: body.filter, data: body.data }),
});

export const confirmSubscriptionRequest = /* @__PURE__ */ bodyReader(confirmSchema, {
  checks: [aliasesAgree],
  output: (body: Addressing) => ({ configId: addressed(body) }),
});

export const listDeadLettersQuery = /* @__PURE__ */ bodyReader(listDeadLettersSchema, {
  output: (query: { config_id: string; limit?: string; cursor?: string }) => ({
    configId: query.config_id.toLowerCase(),
    limit: query.limit === undefined ? DEFAULT_DEAD_LETTERS_PAGE : Number(query.limit),
    cursor: query.cursor,
  }),
});

export const replayDeadLettersRequest = /* @__PURE__ */ bodyReader(replaySchema, {
  checks: [aliasesAgree],
  output: (body: Addressing & { eventIds?: string[] }) => ({ configId: addressed(body), eventIds: body.eventIds }),
});

export type UpdateSubscriptionRequest = BodyOf<typeof updateSubscriptionRequest>;
export type ActivateSubscriptionRequest = BodyOf<typeof activateSubscriptionRequest>;
export type RenameSubscriptionRequest = BodyOf<typeof renameSubscriptionRequest>;
export type TestSubscriptionRequest = BodyOf<typeof testSubscriptionRequest>;
export type ConfirmSubscriptionRequest = BodyOf<typeof confirmSubscriptionRequest>;

export const listAttemptsQuery = /* @__PURE__ */ bodyReader(listAttemptsSchema, {
  output: (query: { config_id: string; limit?: string; cursor?: string; status?: 'delivered' | 'failed' }) => ({
    configId: query.config_id.toLowerCase(),
    limit: query.limit === undefined ? DEFAULT_ATTEMPTS_PAGE : Number(query.limit),
    cursor: query.cursor,
    status: query.status,
  }),
});

type MessagesQueryInput = { config_id: string; limit?: string; cursor?: string; status?: 'pending' | 'delivered' | 'failed' | 'dead-lettered'; event?: string; since?: string; until?: string };
/** An ISO time the schema's pattern took, as the message log's keys write it (UTC, milliseconds). */
const utcOf = (time: string | undefined) => (time === undefined ? undefined : new Date(time).toISOString());
const timeIsReal = (field: 'since' | 'until'): BodyCheck<MessagesQueryInput> => ({
  reads: [field],
  reported: 'field',
  check: (query) => (query[field] !== undefined && Number.isNaN(Date.parse(query[field]!)) ? { field, problem: 'must be a time that exists.' } : undefined),
});
const windowInOrder: BodyCheck<MessagesQueryInput> = {
  reads: ['since', 'until'],
  reported: 'across',
  check: ({ since, until }) =>
    since !== undefined && until !== undefined && Date.parse(since) > Date.parse(until) ? { field: 'since', problem: 'must not be after until.' } : undefined,
};

export const listMessagesQuery = /* @__PURE__ */ bodyReader(listMessagesSchema, {
  checks: [/* @__PURE__ */ timeIsReal('since'), /* @__PURE__ */ timeIsReal('until'), windowInOrder],
  output: (query: MessagesQueryInput) => ({
    configId: query.config_id.toLowerCase(),
    limit: query.limit === undefined ? DEFAULT_MESSAGES_PAGE : Number(query.limit),
    cursor: query.cursor,
    status: query.status,
    event: query.event,
    since: utcOf(query.since),
    until: utcOf(query.until),
  }),
});

export const resendMessageRequest = /* @__PURE__ */ bodyReader(resendSchema, {
  checks: [aliasesAgree],
  output: (body: Addressing & { event_id: string }) => ({ configId: addressed(body), eventId: body.event_id }),
});
