/**
 * The retry sweep: finds the work that is due (shared/data/due-work.ts), one Query per shard, and
 * does each piece once however many sweeps run: a piece is claimed first (a lease, for
 * CLAIM_LEASE_MS), and deleted only once done, so a sweep that fails or crashes half-way leaves it
 * to the next sweep after the claim lapsed (nothing lost; at least once, as every delivery). Each
 * kind is carried out by its own module: retries.ts (`retry`, `settle`), notices.ts (`failing`), disabling.ts; what
 * each comes to is the failing evaluator's decision (failing-evaluator.ts).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import { claimDueWork, DUE_SHARDS, type DueWork, dueWorkPage } from '../data/due-work';
import { find } from '../data/subscription-reads';
import { checkForDisabling } from './disabling';
import { sendFailingNotice } from './notices';
import { CLAIM_LEASE_MS } from './replay';
import { retryDeadLetter, settleRetry } from './retries';
import type { SweepDeps, WorkInHand, WorkOutcome } from './sweep-work';

export type { SweepDeps, WorkOutcome } from './sweep-work';

export interface SweepOutcome {
  /** How many pieces ended each way. */
  counts: Partial<Record<WorkOutcome, number>>;
  /** Pieces that failed, to be tried again by a later sweep: what and why. */
  failures: { work: DueWork; error: unknown }[];
  /** Whether the time ran out before every due piece was looked at. */
  unfinished: boolean;
}

/** Pieces in progress at a time. */
const IN_FLIGHT = 10;
/**
 * Pieces of one portal's a run's first pass does. The first pass walks every shard with this
 * budget for each portal, so a quiet portal's due work goes out in the run it falls due whatever
 * another portal holds; a second pass does the rest, as long as the run has time.
 */
export const PORTAL_SHARE_PER_PASS = 10;

/** The shard a run starts with: each run of a warm function starts one further (a cold one anywhere). */
let nextFirstShard = randomInt(DUE_SHARDS);

/**
 * Does the work due by `now`, until `deadline` (epoch ms); the rest is the next sweep's. The shards
 * are read a page of each in turn, from a shard that moves on every run, so no shard's backlog
 * holds up another's; and a first pass gives each portal PORTAL_SHARE_PER_PASS pieces before a
 * second does the rest (docs/failed-deliveries.md#fair-retries).
 */
export async function sweepDueWork(deps: SweepDeps, now = Date.now(), deadline = now + 45_000): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { counts: {}, failures: [], unfinished: false };
  const claimant = randomUUID();
  const firstShard = nextFirstShard;
  nextFirstShard = (nextFirstShard + 1) % DUE_SHARDS;
  const shards = Array.from({ length: DUE_SHARDS }, (_, n) => (firstShard + n) % DUE_SHARDS);
  const seen = new Set<string>();
  for (const share of [PORTAL_SHARE_PER_PASS, Number.POSITIVE_INFINITY]) {
    const done = await sweepPass(deps, { now, deadline, claimant, shards, share, seen }, outcome);
    if (!done) {
      outcome.unfinished = true;
      break;
    }
  }
  return outcome;
}

interface Pass {
  now: number;
  deadline: number;
  claimant: string;
  shards: number[];
  /** Pieces of each portal this pass does; the others wait for the next pass or run. */
  share: number;
  /** Pieces this run took up already (their sort keys): one that failed waits for the next run. */
  seen: Set<string>;
}

/** One pass over every shard, a page of each in turn; false when the time ran out first. */
async function sweepPass(deps: SweepDeps, pass: Pass, outcome: SweepOutcome): Promise<boolean> {
  const dueBefore = new Date(pass.now).toISOString();
  const taken = new Map<string, number>();
  // Each shard's next page: undefined for its first, null once read to its end.
  const startKeys = new Map<number, Record<string, unknown> | undefined | null>(pass.shards.map((shard) => [shard, undefined]));
  while ([...startKeys.values()].some((key) => key !== null)) {
    for (const shard of pass.shards) {
      const startKey = startKeys.get(shard);
      if (startKey === null) continue;
      if (Date.now() >= pass.deadline) return false;
      const page = await dueWorkPage(deps.table, shard, dueBefore, startKey);
      startKeys.set(shard, page.nextKey ?? null);
      const mine = page.works.filter((work) => {
        if (pass.seen.has(work.sk)) return false;
        const count = taken.get(work.subscriptionPortalId) ?? 0;
        if (count >= pass.share) return false;
        taken.set(work.subscriptionPortalId, count + 1);
        pass.seen.add(work.sk);
        return true;
      });
      const results = await mapWithConcurrency(mine, IN_FLIGHT, (work) => doClaimed(deps, work, pass, outcome));
      for (const result of results) outcome.counts[result] = (outcome.counts[result] ?? 0) + 1;
    }
  }
  return true;
}

/** A piece, once claimed; 'busy' when another sweep holds it (or it is done). */
async function doClaimed(deps: SweepDeps, work: DueWork, { now, claimant }: Pass, outcome: SweepOutcome): Promise<WorkOutcome> {
  try {
    if (!(await claimDueWork(deps.table, work, claimant, now + CLAIM_LEASE_MS, now))) return 'busy';
    const record = await find(deps.table, work.subscriptionPortalId, work.configId);
    return await doWork(deps, { work, claimant, record, now });
  } catch (error) {
    outcome.failures.push({ work, error });
    return 'failed';
  }
}

function doWork(deps: SweepDeps, inHand: WorkInHand): Promise<WorkOutcome> {
  switch (inHand.work.kind) {
    case 'retry':
      return retryDeadLetter(deps, inHand);
    case 'settle':
      return settleRetry(deps, inHand);
    case 'failing':
      return sendFailingNotice(deps, inHand);
    case 'disable':
      return checkForDisabling(deps, inHand);
  }
}
