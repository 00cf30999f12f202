/**
 * `npm run reconcile [-- --dry-run]`: one run of the reconciler (functions/reconcileTopics.ts,
 * run by schedules/reconciler.ts) against the local stack of `npm start`: a readable log line per
 * item it changes (with --dry-run, would change), then its JSON summary, once, on the last line
 * of stdout. A dry run's summary says `"dryRun":true` and counts `wouldDeleteOrphanTopics` and
 * `wouldRepairRecords`. Exits 0 when every item was fine, 1 when some failed (the summary counts
 * them, the log lines above it say which) or the run could not list SNS or scan the table.
 * The variables it reads are those of schedules/reconciler.ts.
 */
import { reconcileOnce } from './schedules/reconciler';

const USAGE = 'Usage: npm run reconcile [-- --dry-run]';

async function main(): Promise<number> {
  const flags = process.argv.slice(2);
  const unknown = flags.filter((flag) => flag !== '--dry-run');
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(' ')}. ${USAGE}`);
  const summary = await reconcileOnce({ dryRun: flags.includes('--dry-run') });
  console.log(JSON.stringify(summary));
  return summary.errors > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`npm run reconcile failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
