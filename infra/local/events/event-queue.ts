/**
 * The dispatcher's SQS queue, in process: what the EventBridge rule puts on it is handed to
 * the dispatcher handler in batches of SQS records, as Lambda's SQS event source does. Records
 * the handler reports failed (SQS partial batch response) come back after a visibility delay;
 * a record that fails `maxReceiveCount` times is moved to the dead letters, as SQS's redrive
 * policy does. One batch runs at a time. With a state file, what is queued (and the dead
 * letters) outlives a stop, as an SQS queue's messages do: close() writes it, the next start
 * reads it and goes on.
 *
 * The same queue, with message attributes, stands in for the delivery dead-letter queue that
 * feeds the dead-letter recorder (stack/local-stack.ts): `what` names its messages in the log.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createHash, randomUUID } from 'node:crypto';
import { readStateFile, writeStateFile } from '../state-file';

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

const MAX_QUEUED = 10_000;
const MAX_DEAD_LETTERS = 1_000;

export class EventQueue {
  readonly deadLetters: DeadLetteredEvent[] = [];
  /** Dead letters removed, oldest first, to keep the latest MAX_DEAD_LETTERS: counted, and listed with them. */
  deadLettersNotKept = 0;
  private readonly messages: QueuedMessage[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly batchSize: number;
  private readonly maxReceiveCount: number;
  private readonly visibilityDelayMs: number;
  private readonly what: string;

  constructor(private readonly options: EventQueueOptions) {
    this.batchSize = options.batchSize ?? 10;
    this.maxReceiveCount = options.maxReceiveCount ?? 5;
    this.visibilityDelayMs = options.visibilityDelayMs ?? 1_000;
    this.what = options.what ?? 'events';
    this.load();
  }

  /** Queues a message body, with message attributes if given (a string: a String attribute); false when the queue is full or closed. */
  send(body: string, attributes?: Record<string, QueueMessageAttribute | string>): boolean {
    if (this.closed || this.messages.length >= MAX_QUEUED) return false;
    const now = Date.now();
    this.messages.push({ messageId: randomUUID(), body, ...(attributes && { attributes }), sentAt: now, receiveCount: 0, visibleAt: now });
    this.schedule(0);
    return true;
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
    await this.running;
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
    for (const message of saved.messages) this.messages.push({ ...message, visibleAt: now });
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

  private schedule(delayMs: number): void {
    if (this.closed || this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.runBatch().finally(() => {
        this.running = undefined;
        this.scheduleNext();
      });
    }, delayMs);
  }

  private scheduleNext(): void {
    if (this.messages.length === 0) return;
    const next = Math.min(...this.messages.map((message) => message.visibleAt));
    this.schedule(Math.max(0, next - Date.now()));
  }

  private async runBatch(): Promise<void> {
    const now = Date.now();
    const batch = this.messages.filter((message) => message.visibleAt <= now).slice(0, this.batchSize);
    if (batch.length === 0) return;
    for (const message of batch) {
      message.receiveCount++;
      message.visibleAt = Number.POSITIVE_INFINITY; // in flight
    }
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
      if (!failed.has(message.messageId)) this.remove(message);
      else if (message.receiveCount >= this.maxReceiveCount) this.deadLetter(message);
      else message.visibleAt = Date.now() + this.visibilityDelayMs;
    }
  }

  private remove(message: QueuedMessage): void {
    const index = this.messages.indexOf(message);
    if (index >= 0) this.messages.splice(index, 1);
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
