/**
 * The dead letters the emulator keeps (GET /_emulator/dead-letters): each subscription keeps its
 * latest letters up to its share; older ones are counted per subscription, so one failing
 * endpoint never pushes out another's, and none goes unreported.
 */
import type { DeadLetter } from './types';

/** Dead letters of a subscription that no longer fit its share of the list: counted, never silently gone. */
export interface DeadLetterOverflow {
  subscriptionArn: string;
  deadLetterTargetArn: string;
  /** The oldest ones, removed to keep the latest. */
  notKept: number;
}

export class DeadLetterStore {
  /** Oldest first, at most perSubscription of each subscription. */
  readonly letters: DeadLetter[] = [];
  private readonly counts = new Map<string, number>();
  private readonly overflowBySubscription = new Map<string, DeadLetterOverflow>();

  constructor(
    private readonly perSubscription: number,
    private readonly log: (line: string) => void,
  ) {}

  keep(letter: DeadLetter): void {
    this.letters.push(letter);
    const count = (this.counts.get(letter.subscriptionArn) ?? 0) + 1;
    if (count <= this.perSubscription) {
      this.counts.set(letter.subscriptionArn, count);
      return;
    }
    this.letters.splice(this.letters.findIndex((kept) => kept.subscriptionArn === letter.subscriptionArn), 1);
    let overflow = this.overflowBySubscription.get(letter.subscriptionArn);
    if (!overflow) {
      overflow = { subscriptionArn: letter.subscriptionArn, deadLetterTargetArn: letter.deadLetterTargetArn, notKept: 0 };
      this.overflowBySubscription.set(letter.subscriptionArn, overflow);
      this.log(
        `dead letters of ${letter.subscriptionArn} past ${this.perSubscription}: ` +
          'keeping the latest, counting the others (overflow in GET /_emulator/dead-letters)',
      );
    }
    overflow.notKept++;
  }

  /** Dead letters counted but no longer kept, per subscription. */
  overflow(): DeadLetterOverflow[] {
    return [...this.overflowBySubscription.values()];
  }

  /** What a state file held: the counts of those no longer kept first, then the letters. */
  restore(letters: readonly DeadLetter[], overflow: readonly DeadLetterOverflow[]): void {
    for (const entry of overflow) this.overflowBySubscription.set(entry.subscriptionArn, { ...entry });
    for (const letter of letters) this.keep(letter);
  }
}
