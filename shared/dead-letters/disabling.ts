/**
 * A due check for disabling (`disable` due work): what the failing evaluator decides, carried out.
 * A subscription still failing DISABLE_FAILING_AFTER after its streak began (no success since) is
 * deactivated with disabledReason `failing` and disabledAt, then the portal is told.
 */
import { finishDueWork } from '../data/due-work';
import { disableForFailing } from '../data/subscription-records';
import { onDisableDue } from './failing-evaluator';
import { DISABLED_EVENT_KIND, noticeFor, sendNotice } from './notices';
import type { SweepDeps, WorkInHand, WorkOutcome } from './sweep-work';

export async function checkForDisabling(deps: SweepDeps, { work, claimant, record, now }: WorkInHand): Promise<WorkOutcome> {
  const decision = onDisableDue(record, work, now, deps.settings);
  if (decision.action === 'wait') return 'busy';
  if (decision.action === 'drop') {
    await finishDueWork(deps.table, work, claimant);
    return 'dropped';
  }
  const { disabledAt } = decision;
  // Still activated and still this streak when written; else it is no longer this work's to do.
  if (decision.action === 'disable' && !(await disableForFailing(deps.table, { portalId: work.subscriptionPortalId, configId: work.configId }, work.failingSince!, disabledAt))) {
    await finishDueWork(deps.table, work, claimant);
    return 'dropped';
  }
  // Once disabled, a notice that failed is sent again by the next sweep ('notify').
  await sendNotice(deps, noticeFor(DISABLED_EVENT_KIND, work, record!, { reason: 'failing', occurredAt: disabledAt, disabledAt }));
  await finishDueWork(deps.table, work, claimant);
  return 'disabled';
}
