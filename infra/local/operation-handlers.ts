/**
 * The Lambda handlers, imported from `functions/` (the operations' as the operations table names
 * them, the dispatcher and the dead-letter recorder), once per process, the way one Lambda sandbox imports its handler
 * once and reuses it.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { writeValidators } from '../../shared/contract/write-validators';
import { SETTINGS } from '../../shared/settings';
import { ATTEMPTS_RECORDER, DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER, DISPATCHER, handlerEntryOf, OPERATIONS, RECOVERY_WORKER, RETRY_SWEEPER } from '../../shared/operations';
import type { SqsHandler } from './events/event-queue';

export type OperationHandler = (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<unknown>;

/** Handler of each operation, by operation id. */
export type OperationHandlers = ReadonlyMap<string, OperationHandler>;

/**
 * What the handlers read from the environment when they are imported, and never again: their
 * settings and the SDK's (shared/settings.ts).
 */
const VARIABLES_READ_AT_IMPORT = SETTINGS.filter((setting) => setting.kind === 'function' || setting.kind === 'sdk').map((setting) => setting.variable!);

let environmentAtFirstLoad: string | undefined;

/**
 * Imports every operation's handler. The environment must be set before: the handlers read
 * their configuration and build their SDK clients at import. A module is imported only once
 * per process, so loading again with another environment would silently keep the first one;
 * that is refused instead (one local stack per process, or restarts on the same endpoints).
 */
export async function loadOperationHandlers(): Promise<OperationHandlers> {
  checkEnvironmentUnchanged();
  // The request validators they import, compiled from the contract's schemas as they are now.
  writeValidators();
  const handlers = new Map<string, OperationHandler>();
  for (const operation of OPERATIONS) handlers.set(operation.id, await importHandler<OperationHandler>(handlerEntryOf(operation)));
  return handlers;
}

/** The dispatcher's handler; the same rules as for the operations' apply. */
export async function loadDispatcher(): Promise<SqsHandler> {
  checkEnvironmentUnchanged();
  return importHandler<SqsHandler>(DISPATCHER.entry);
}

/** The dead-letter recorder's handler; the same rules as for the operations' apply. */
export async function loadDeadLetterForwarder(): Promise<SqsHandler> {
  checkEnvironmentUnchanged();
  return importHandler<SqsHandler>(DEAD_LETTER_FORWARDER.entry);
}

export async function loadDeadLetterRecorder(): Promise<SqsHandler> {
  checkEnvironmentUnchanged();
  return importHandler<SqsHandler>(DEAD_LETTER_RECORDER.entry);
}

/** The recovery worker's handler; the same rules as for the operations' apply. */
export async function loadRecoveryWorker(): Promise<SqsHandler> {
  checkEnvironmentUnchanged();
  return importHandler<SqsHandler>(RECOVERY_WORKER.entry);
}

function checkEnvironmentUnchanged(): void {
  const environment = JSON.stringify(VARIABLES_READ_AT_IMPORT.map((name) => [name, process.env[name]]));
  if (environmentAtFirstLoad !== undefined && environmentAtFirstLoad !== environment) {
    throw new Error(
      'The handlers were already imported in this process with other settings (table, endpoints, region...); ' +
        'they read those once, at import. Start a local stack again with the same ports and settings, or in a new process.',
    );
  }
  environmentAtFirstLoad = environment;
}

async function importHandler<Handler>(entry: string): Promise<Handler> {
  const module = (await import(new URL(`../../${entry}`, import.meta.url).href)) as { handler?: unknown };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function.`);
  return module.handler as Handler;
}

/** A function an EventBridge schedule invokes, as Lambda invokes it. */
export type ScheduledHandler = (event: unknown, context: Context) => Promise<unknown>;

/** The retry sweep's handler; the same rules as for the operations' apply. */
export async function loadRetrySweeper(): Promise<ScheduledHandler> {
  checkEnvironmentUnchanged();
  return importHandler<ScheduledHandler>(RETRY_SWEEPER.entry);
}

/** A consumer of CloudWatch Logs subscription events, as Lambda invokes one. */
export type LogSubscriptionHandler = (event: { awslogs: { data: string } }, context: Context) => Promise<unknown>;

/** The attempts consumer's handler; the same rules as for the operations' apply. */
export async function loadAttemptsRecorder(): Promise<LogSubscriptionHandler> {
  checkEnvironmentUnchanged();
  return importHandler<LogSubscriptionHandler>(ATTEMPTS_RECORDER.entry);
}
