/**
 * At start, every recovery still `running` gets a job on the local recovery queue: a stop of
 * `npm start` midway (its in-flight job lost, or a delayed one not kept) does not leave it
 * unfinished. Found in the running recoveries' partition (shared/data/recoveries.ts), not by a Scan.
 * A job more than needed is harmless: the worker's lease lets one work a recovery at a time, and a
 * job of a recovery that ended is dropped.
 */
import type { EventQueue } from '../events/event-queue';

export async function resumeRunningRecoveries(queue: EventQueue, log: (line: string) => void): Promise<number> {
  // Imported now: the environment (table, endpoints) is set by then.
  const [{ documentClient }, { everyRunningRecovery }, { tableName }] = await Promise.all([
    import('../../../shared/aws/dynamodb'),
    import('../../../shared/data/recoveries'),
    import('../../../shared/environment'),
  ]);
  const running = await everyRunningRecovery({ db: documentClient, tableName });
  for (const { portalId, configId, recoveryId } of running) queue.send(JSON.stringify({ portalId, configId, recoveryId }), undefined, portalId);
  if (running.length > 0) log(`resuming ${running.length} running recover${running.length === 1 ? 'y' : 'ies'}`);
  return running.length;
}
