/** What the retry sweep's pieces of work share: what they need, what each comes to, and the one in hand. */
import type { SNSClient } from '@aws-sdk/client-sns';
import type { DueWork } from '../data/due-work';
import type { RecordTable } from '../data/table';
import type { Subscription } from '../data/subscription-record';
import type { DispatchDeps } from '../delivery/dispatch';
import type { MessageLog } from '../data/messages';
import type { FailingSettings } from './failing-evaluator';

export interface SweepDeps {
  table: RecordTable;
  sns: SNSClient;
  /** The portal's subscriptions, for a notice. */
  repository: DispatchDeps['repository'];
  settings: Pick<FailingSettings, 'disableFailingAfterMs'>;
  /** The message log: retries and notices are logged as every message is. */
  messages: MessageLog;
}

export type WorkOutcome = 'retried' | 'settled' | 'notified' | 'disabled' | 'dropped' | 'stopped' | 'busy' | 'failed';

/** A piece of work this sweep claimed, with its subscription's record as read then (undefined: deleted). */
export interface WorkInHand {
  work: DueWork;
  claimant: string;
  record: Subscription | undefined;
  now: number;
}
