/** What each line of one invocation carries (logger.ts): its Lambda context, trace id and operation. */
import type { Context } from 'aws-lambda';
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What every line of one invocation carries: its Lambda context's fields, trace id and
 * operation (which no caller's keys replace), and the keys appended while it runs. Kept per
 * invocation (AsyncLocalStorage), not in the logger: one process serves several invocations at
 * once on Lambda Managed Instances
 * (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-nodejs-runtime.html)
 * and under `npm start`, and a slot of the logger's would name whichever invocation set it last.
 */
interface Invocation {
  fields: Record<string, unknown>;
  keys: Record<string, unknown>;
}

export const invocations = new AsyncLocalStorage<Invocation>();

/**
 * The X-Ray trace id of the invocation at hand. Under multi-concurrency Lambda's runtime keeps
 * each invocation's trace header in its per-invocation store (`awslambda.InvokeStore`, an
 * AsyncLocalStorage; Powertools reads it the same way), since one process-wide variable cannot
 * hold several; otherwise it sets `_X_AMZN_TRACE_ID` before each invocation. The header is
 * `Root=1-…;Parent=…;Sampled=…`; the id is its Root.
 */
function currentTraceId(): string | undefined {
  let header: unknown;
  try {
    const store = (globalThis as { awslambda?: { InvokeStore?: { getXRayTraceId?: () => unknown } } }).awslambda?.InvokeStore;
    header = store?.getXRayTraceId?.();
  } catch {
    // An unexpected runtime: the variable below is all there is.
  }
  if (typeof header !== 'string' || header === '') header = process.env._X_AMZN_TRACE_ID;
  if (typeof header !== 'string' || header === '') return undefined;
  if (!header.includes('=')) return header;
  return /(?:^|;)\s*Root=([^;]*)/.exec(header)?.[1] || undefined;
}

export function invocationFields(context: Context | undefined, coldStart: boolean | undefined): Record<string, unknown> {
  return {
    cold_start: coldStart,
    function_arn: context?.invokedFunctionArn,
    function_memory_size: context?.memoryLimitInMB === undefined ? undefined : Number(context.memoryLimitInMB),
    function_name: context?.functionName,
    function_request_id: context?.awsRequestId,
    xray_trace_id: currentTraceId(),
  };
}

/**
 * Wraps a Lambda handler so that every line logged while an invocation runs, in whatever it
 * awaits, carries that invocation's Lambda context, trace id and `operation`, and none of
 * another's. `cold_start` is true on the first invocation of this handler, and, as Powertools
 * has it, only where Lambda says the environment started on demand
 * (AWS_LAMBDA_INITIALIZATION_TYPE=on-demand; not provisioned concurrency or SnapStart). The flag
 * lives in this closure, one per handler, not in the logger: where several handlers share a
 * process and this logger (npm start, the tests), each still reports its own first invocation.
 */
export function withInvocationLogging<Event, Result>(
  operation: string,
  handler: (event: Event, context: Context) => Promise<Result>,
): (event: Event, context: Context) => Promise<Result> {
  let firstInvocation = true;
  return (event, context) => {
    const coldStart = firstInvocation && process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';
    firstInvocation = false;
    return invocations.run({ fields: { ...invocationFields(context, coldStart), operation }, keys: {} }, () => handler(event, context));
  };
}
