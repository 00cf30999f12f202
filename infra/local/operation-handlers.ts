/**
 * The six Lambda handlers, imported from `functions/` as the operations table names them, once
 * per process, the way one Lambda sandbox imports its handler once and reuses it.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { handlerEntryOf, OPERATIONS } from '../../shared/operations';

export type OperationHandler = (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<unknown>;

/** Handler of each operation, by operation id. */
export type OperationHandlers = ReadonlyMap<string, OperationHandler>;

/** What the handlers read from the environment when they are imported, and never again. */
const VARIABLES_READ_AT_IMPORT = [
  'TABLE_NAME',
  'TOPIC_PREFIX',
  'MAX_SUBSCRIPTIONS_PER_PORTAL',
  'EVENT_KINDS',
  'PORTAL_CLAIM',
  'AWS_REGION',
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SNS',
] as const;

let environmentAtFirstLoad: string | undefined;

/**
 * Imports every operation's handler. The environment must be set before: the handlers read
 * their configuration and build their SDK clients at import. A module is imported only once
 * per process, so loading again with another environment would silently keep the first one;
 * that is refused instead (one local stack per process, or restarts on the same endpoints).
 */
export async function loadOperationHandlers(): Promise<OperationHandlers> {
  const environment = JSON.stringify(VARIABLES_READ_AT_IMPORT.map((name) => [name, process.env[name]]));
  if (environmentAtFirstLoad !== undefined && environmentAtFirstLoad !== environment) {
    throw new Error(
      'The handlers were already imported in this process with other settings (table, endpoints, region...); ' +
        'they read those once, at import. Start a local stack again with the same ports and settings, or in a new process.',
    );
  }
  environmentAtFirstLoad = environment;

  const handlers = new Map<string, OperationHandler>();
  for (const operation of OPERATIONS) {
    const entry = handlerEntryOf(operation);
    const module = (await import(new URL(`../../${entry}`, import.meta.url).href)) as { handler?: unknown };
    if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function.`);
    handlers.set(operation.id, module.handler as OperationHandler);
  }
  return handlers;
}
