/**
 * The dispatcher's SQS queue, in process: what the EventBridge rule puts on it is handed to
 * the dispatcher handler in batches of SQS records, as Lambda's SQS event source does. Records
 * the handler reports failed (SQS partial batch response) come back after a visibility delay;
 * a record that fails `maxReceiveCount` times is moved to the dead letters, as SQS's redrive
 * policy does. Up to `maxConcurrency` batches run at a time, as the event source's maximum
 * concurrency allows on AWS, and each batch is chosen as an SQS fair queue chooses
 * (fair-selection.ts): a message sent with a group id (the portal's) belongs to that tenant, and
 * while one tenant holds most of what is in flight the others' messages go first. There is no cap
 * on the whole queue (SQS has none in practice); one group may hold at most MAX_QUEUED_PER_GROUP
 * messages, beyond which its sends alone are refused. With a state file, what is queued (and the dead
 * letters) outlives a stop, as an SQS queue's messages do: close() writes it, the next start
 * reads it and goes on.
 *
 * The same queue, with message attributes, stands in for the delivery dead-letter queue that
 * feeds the dead-letter recorder (stack/local-stack.ts): `what` names its messages in the log.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createHash, randomUUID } from 'node:crypto';
import { readStateFile, writeStateFile } from '../state-file';
import { fairBatch } from './fair-selection';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface EventQueueOptions {
  /** The queue's ARN, as records name it. */
  queueArn: string;
  region: string;
  handler: SqsHandler;
  /** A Lambda context for each invocation. */
  context: () => Context;
  /** Records per invocation; Lambda's SQS default is 10. */
  batchSize?: number;
  /** Batches handed to the handler at a time (the event source's maximum concurrency); 1 by default. */
  maxConcurrency?: number;
  /** Tries before a record is dead-lettered (the stack's maxReceiveCount). */
  maxReceiveCount?: number;
  /** How long a failed record stays invisible before it is tried again; compressed locally. */
  visibilityDelayMs?: number;
  /** Where the queue is kept between starts; none: it lives in memory only. */
  stateFile?: string;
  /** What its messages are, for the log: "events" (default), "dead letters". */
  what?: string;
  /** The SenderId attribute of its records: who sends to it on AWS. */
  senderId?: string;
  log?: (line: string) => void;
}

/**
 * An SQS message attribute: its data type (String, Number or Binary, a custom suffix allowed:
 * `Number.float`) and its value, a binary one in base64 as Lambda hands it over. A plain string
 * given to send() is a `String` attribute.
 */
export interface QueueMessageAttribute {
  dataType: string;
  stringValue?: string;
  binaryValue?: string;
}

/** A message given up on after maxReceiveCount tries. */
export interface DeadLetteredEvent {
  at: string;
  messageId: string;
  receiveCount: number;
  body: string;
}

interface QueuedMessage {
  messageId: string;
  body: string;
  /** SQS message attributes (a state file of an older version holds plain strings). */
  attributes?: Record<string, QueueMessageAttribute | string>;
  /** Its MessageGroupId: the tenant it belongs to in a fair queue. */
  groupId?: string;
  sentAt: number;
  receiveCount: number;
  visibleAt: number;
}

interface SavedQueue {
  version: 1;
  messages: Omit<QueuedMessage, 'visibleAt'>[];
  deadLetters: DeadLetteredEvent[];
  deadLettersNotKept: number;
}

/** What one group may hold; a group over it has its sends refused, the others' go on. */
export const MAX_QUEUED_PER_GROUP = 10_000;
const MAX_DEAD_LETTERS = 1_000;

export class EventQueue {
  readonly deadLetters: DeadLetteredEvent[] = [];
  /** Dead letters removed, oldest first, to keep the latest MAX_DEAD_LETTERS: counted, and listed with them. */
  deadLettersNotKept = 0;
  private readonly messages: QueuedMessage[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();
  /** Messages queued (waiting or in flight) and in flight, per group. */
  private readonly queuedByGroup = new Map<string, number>();
  private readonly inFlightByGroup = new Map<string, number>();
  private closed = false;
  private readonly batchSize: number;
  private readonly maxConcurrency: number;
  private readonly maxReceiveCount: number;
  private readonly visibilityDelayMs: number;
  private readonly what: string;

  constructor(private readonly options: EventQueueOptions) {
    this.batchSize = options.batchSize ?? 10;
    this.maxConcurrency = Math.max(1, options.maxConcurrency ?? 1);
    this.maxReceiveCount = options.maxReceiveCount ?? 5;
    this.visibilityDelayMs = options.visibilityDelayMs ?? 1_000;
    this.what = options.what ?? 'events';
    this.load();
  }

  /**
   * Queues a message body, with message attributes if given (a string: a String attribute) and the
   * group it belongs to; false when the queue is closed or that group holds its most already.
   */
  send(body: string, attributes?: Record<string, QueueMessageAttribute | string>, groupId?: string): boolean {
    if (this.closed) return false;
    if (groupId !== undefined && (this.queuedByGroup.get(groupId) ?? 0) >= MAX_QUEUED_PER_GROUP) return false;
    const now = Date.now();
    this.add({ messageId: randomUUID(), body, ...(attributes && { attributes }), ...(groupId !== undefined && { groupId }), sentAt: now, receiveCount: 0, visibleAt: now });
    this.schedule(0);
    return true;
  }

  private add(message: QueuedMessage): void {
    this.messages.push(message);
    if (message.groupId !== undefined) count(this.queuedByGroup, message.groupId, 1);
  }

  /** Messages waiting or being retried. */
  get depth(): number {
    return this.messages.length;
  }

  /** Stops handing out batches once the one running ends, and keeps what is left in the state file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all(this.running);
    const file = this.options.stateFile;
    if (file) {
      this.save(file);
      if (this.messages.length > 0) {
        this.options.log?.(`kept ${this.messages.length} queued ${this.what} in ${file}; they are handled at the next start`);
      }
    } else if (this.messages.length > 0) {
      this.options.log?.(`discarded ${this.messages.length} queued ${this.what}: no state file to keep them in`);
    }
  }

  private load(): void {
    const file = this.options.stateFile;
    if (!file) return;
    const saved = readStateFile(file, 'Event queue file') as SavedQueue | undefined;
    if (saved === undefined) return;
    if (saved?.version !== 1 || !Array.isArray(saved.messages) || !Array.isArray(saved.deadLetters)) {
      throw new Error(`Event queue file ${file} is not in the expected format; fix or remove it.`);
    }
    const now = Date.now();
    for (const message of saved.messages) this.add({ ...message, visibleAt: now });
    this.deadLetters.push(...saved.deadLetters);
    this.deadLettersNotKept = Number(saved.deadLettersNotKept) || 0;
    if (this.messages.length > 0) {
      this.options.log?.(`resuming ${this.messages.length} ${this.what} still queued at the last stop`);
      this.schedule(0);
    }
  }

  /** The queue as the next start resumes it. */
  private save(file: string): void {
    const saved: SavedQueue = {
      version: 1,
      messages: this.messages.map(({ visibleAt: _visibleAt, ...message }) => message),
      deadLetters: this.deadLetters,
      deadLettersNotKept: this.deadLettersNotKept,
    };
    writeStateFile(file, JSON.stringify(saved));
  }

  /** Starts what batches it may now, or sets a timer for when the next message shows. */
  private schedule(delayMs: number): void {
    if (this.closed || this.running.size >= this.maxConcurrency) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.startBatches(), delayMs);
  }

  private startBatches(): void {
    while (!this.closed && this.running.size < this.maxConcurrency) {
      const batch = this.takeBatch();
      if (batch.length === 0) break;
      const running: Promise<void> = this.runBatch(batch).finally(() => {
        this.running.delete(running);
        this.scheduleNext();
      });
      this.running.add(running);
    }
    this.scheduleNext();
  }

  private scheduleNext(): void {
    if (this.messages.length === 0 || this.running.size >= this.maxConcurrency) return;
    let next = Number.POSITIVE_INFINITY;
    for (const message of this.messages) if (message.visibleAt < next) next = message.visibleAt;
    if (next === Number.POSITIVE_INFINITY) return; // all in flight: a batch's end schedules again
    this.schedule(Math.max(0, next - Date.now()));
  }

  /** The next batch, chosen as a fair queue chooses, now in flight. */
  private takeBatch(): QueuedMessage[] {
    const now = Date.now();
    const batch = fairBatch(
      this.messages.filter((message) => message.visibleAt <= now),
      this.inFlightByGroup,
      this.batchSize,
    );
    for (const message of batch) {
      message.receiveCount++;
      message.visibleAt = Number.POSITIVE_INFINITY; // in flight
      if (message.groupId !== undefined) count(this.inFlightByGroup, message.groupId, 1);
    }
    return batch;
  }

  private async runBatch(batch: QueuedMessage[]): Promise<void> {
    let failed: Set<string>;
    try {
      const response = await this.options.handler({ Records: batch.map((message) => this.recordOf(message)) }, this.options.context());
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      // A function error fails the whole batch, as on Lambda.
      this.options.log?.(`the handler of ${this.what} failed: ${(error as Error)?.stack ?? String(error)}`);
      failed = new Set(batch.map((message) => message.messageId));
    }
    for (const message of batch) {
      if (message.groupId !== undefined) count(this.inFlightByGroup, message.groupId, -1);
      if (!failed.has(message.messageId)) this.remove(message);
      else if (message.receiveCount >= this.maxReceiveCount) this.deadLetter(message);
      else message.visibleAt = Date.now() + this.visibilityDelayMs;
    }
  }

  private remove(message: QueuedMessage): void {
    const index = this.messages.indexOf(message);
    if (index < 0) return;
    this.messages.splice(index, 1);
    if (message.groupId !== undefined) count(this.queuedByGroup, message.groupId, -1);
  }

  private deadLetter(message: QueuedMessage): void {
    this.remove(message);
    this.deadLetters.push({
      at: new Date().toISOString(),
      messageId: message.messageId,
      receiveCount: message.receiveCount,
      body: message.body,
    });
    if (this.deadLetters.length > MAX_DEAD_LETTERS) {
      this.deadLetters.shift();
      this.deadLettersNotKept++;
    }
    this.options.log?.(`${this.what}: ${message.messageId} moved to the dead letters after ${message.receiveCount} tries`);
  }

  private recordOf(message: QueuedMessage): SQSRecord {
    const attributes = typedAttributes(message.attributes);
    return {
      messageId: message.messageId,
      receiptHandle: `${message.messageId}#${message.receiveCount}`,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: this.options.senderId ?? 'AIDAEVENTBRIDGE',
        ApproximateFirstReceiveTimestamp: String(message.sentAt),
      },
      // As Lambda hands them over (recorded): the value, empty lists, the data type.
      messageAttributes: Object.fromEntries(
        Object.entries(attributes).map(([name, { dataType, stringValue, binaryValue }]) => [
          name,
          { ...(binaryValue === undefined ? { stringValue } : { binaryValue }), stringListValues: [], binaryListValues: [], dataType },
        ]),
      ),
      // null without attributes, as Lambda hands SQS records over (recorded); typed as optional string.
      md5OfMessageAttributes: (Object.keys(attributes).length > 0 ? md5OfMessageAttributes(attributes) : null) as string | undefined,
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: this.options.queueArn,
      awsRegion: this.options.region,
    };
  }
}

/** Adds `by` to a group's count, forgetting a group that comes to none. */
function count(counts: Map<string, number>, group: string, by: number): void {
  const next = (counts.get(group) ?? 0) + by;
  if (next > 0) counts.set(group, next);
  else counts.delete(group);
}

/** The attributes with their data types: a plain string is a String attribute. */
function typedAttributes(attributes: Record<string, QueueMessageAttribute | string> | undefined): Record<string, QueueMessageAttribute> {
  return Object.fromEntries(
    Object.entries(attributes ?? {}).map(([name, value]) => [name, typeof value === 'string' ? { dataType: 'String', stringValue: value } : value]),
  );
}

/**
 * SQS's MD5 of message attributes, as SQS computes MD5OfMessageAttributes and Lambda hands it on
 * (Amazon SQS Developer Guide, "Calculating the MD5 message digest for message attributes",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-message-metadata.html):
 * the attributes sorted by name; for each, its name and its data type, each as a 4-byte big-endian
 * length and the UTF-8 bytes, then the transport type in one byte (1 for String and Number, 2 for
 * Binary, whatever the custom suffix), then the value as length and bytes (a binary value's own
 * bytes, not its base64).
 */
export function md5OfMessageAttributes(attributes: Record<string, QueueMessageAttribute>): string {
  const hash = createHash('md5');
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  };
  // By UTF-16 code units, as Java's String order (SQS's) and JavaScript's default sort agree.
  for (const name of Object.keys(attributes).sort()) {
    const { dataType, stringValue, binaryValue } = attributes[name]!;
    field(Buffer.from(name, 'utf8'));
    field(Buffer.from(dataType, 'utf8'));
    const binary = dataType.startsWith('Binary');
    hash.update(Buffer.from([binary ? 2 : 1]));
    field(binary ? Buffer.from(binaryValue ?? '', 'base64') : Buffer.from(stringValue ?? '', 'utf8'));
  }
  return hash.digest('hex');
}
