/**
 * The retry sweep: finds the work that is due (shared/data/due-work.ts), one Query per shard, and
 * does each piece once however many sweeps run: a piece is claimed first (a lease, for
 * CLAIM_LEASE_MS), and deleted only once done, so a sweep that fails or crashes half-way leaves it
 * to the next sweep after the claim lapsed (nothing lost; at least once, as every delivery). Each
 * kind is carried out by its own module: retries.ts, notices.ts (`failing`), disabling.ts; what
 * each comes to is the failing evaluator's decision (failing-evaluator.ts).
 */
import { randomUUID } from 'node:crypto';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import { claimDueWork, DUE_SHARDS, type DueWork, dueWorkPage } from '../data/due-work';
import { find } from '../data/subscription-reads';
import { checkForDisabling } from './disabling';
import { sendFailingNotice } from './notices';
import { CLAIM_LEASE_MS } from './replay';
import { retryDeadLetter } from './retries';
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

/** Does the work due by `now`, until `deadline` (epoch ms); the rest is the next sweep's. */
export async function sweepDueWork(deps: SweepDeps, now = Date.now(), deadline = now + 45_000): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { counts: {}, failures: [], unfinished: false };
  const claimant = randomUUID();
  const dueBefore = new Date(now).toISOString();
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    let startKey: Record<string, unknown> | undefined;
    do {
      if (Date.now() >= deadline) {
        outcome.unfinished = true;
        return outcome;
      }
      const page = await dueWorkPage(deps.table, shard, dueBefore, startKey);
      startKey = page.nextKey;
      const results = await mapWithConcurrency(page.works, IN_FLIGHT, async (work): Promise<WorkOutcome> => {
        try {
          if (!(await claimDueWork(deps.table, work, claimant, now + CLAIM_LEASE_MS, now))) return 'busy';
          const record = await find(deps.table, work.subscriptionPortalId, work.configId);
          return await doWork(deps, { work, claimant, record, now });
        } catch (error) {
          outcome.failures.push({ work, error });
          return 'failed';
        }
      });
      for (const result of results) outcome.counts[result] = (outcome.counts[result] ?? 0) + 1;
    } while (startKey);
  }
  return outcome;
}

function doWork(deps: SweepDeps, inHand: WorkInHand): Promise<WorkOutcome> {
  switch (inHand.work.kind) {
    case 'retry':
      return retryDeadLetter(deps, inHand);
    case 'failing':
      return sendFailingNotice(deps, inHand);
    case 'disable':
      return checkForDisabling(deps, inHand);
  }
}
