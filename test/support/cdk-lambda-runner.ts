/**
 * Invokes a function of a synthesized CDK template the way `sam local invoke -t
 * cdk.out/<stack>.template.json <id> -e <event>` does, without SAM or Docker: the code is the
 * bundle in the cloud assembly that the resource's `aws:asset:path` names, the handler is the
 * resource's Handler, the environment is the one SAM builds from the resource's
 * Environment.Variables (a `Ref` overridden, as with `--env-vars`), and the handler runs in
 * a separate Node process that imports the bundle as the Lambda runtime would: nothing of
 * jest's module registry, nothing of the test process's environment.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A Lambda function resource of a template, as SAM reads it. */
export interface SynthesizedFunction {
  /** What `sam local invoke` takes: the resource's SamResourceId metadata, else its logical id. */
  readonly id: string;
  readonly logicalId: string;
  readonly runtime: string;
  /** `<module>.<export>`, e.g. index.handler. */
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  /** The bundle directory in the cloud assembly. */
  readonly codeDirectory: string;
  /** Environment.Variables as in the template (values may be CloudFormation intrinsics). */
  readonly variables: Readonly<Record<string, unknown>>;
}

interface TemplateResource {
  Type: string;
  Properties?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- CloudFormation JSON
  Metadata?: Record<string, unknown>;
}

/** Every AWS::Lambda::Function of the template, by SAM id. */
export function synthesizedFunctions(
  assemblyDirectory: string,
  template: { Resources: Record<string, TemplateResource> },
): Map<string, SynthesizedFunction> {
  const functions = new Map<string, SynthesizedFunction>();
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string') throw new Error(`${logicalId} has no aws:asset:path: SAM could not find its code.`);
    const properties = resource.Properties ?? {};
    const id = typeof resource.Metadata?.SamResourceId === 'string' ? resource.Metadata.SamResourceId : logicalId;
    functions.set(id, {
      id,
      logicalId,
      runtime: properties.Runtime,
      handler: properties.Handler,
      timeoutSeconds: properties.Timeout ?? 3,
      memorySize: properties.MemorySize ?? 128,
      codeDirectory: join(assemblyDirectory, assetPath),
      variables: properties.Environment?.Variables ?? {},
    });
  }
  return functions;
}

export interface SamEnvironmentOptions {
  /** Values for variables the template declares, as `--env-vars` gives them (e.g. for a `Ref`). */
  readonly overrides: Readonly<Record<string, string>>;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * The environment `sam local invoke` gives a function: SAM's AWS_* variables, then every
 * variable the template declares, overridden from `--env-vars`. Like SAM, it sets nothing the
 * template does not declare. Unlike SAM, which passes an unresolved intrinsic (a `Ref`) as an
 * empty string, it refuses one without an override: that function could not work.
 */
export function samEnvironment(fn: SynthesizedFunction, options: SamEnvironmentOptions): Record<string, string> {
  const environment: Record<string, string> = {
    AWS_SAM_LOCAL: 'true',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_FUNCTION_TIMEOUT: String(fn.timeoutSeconds),
    AWS_LAMBDA_FUNCTION_HANDLER: fn.handler,
    AWS_LAMBDA_FUNCTION_NAME: fn.id,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_LOG_GROUP_NAME: `aws/lambda/${fn.id}`,
    AWS_LAMBDA_LOG_STREAM_NAME: '$LATEST',
    AWS_REGION: options.region,
    AWS_DEFAULT_REGION: options.region,
    AWS_ACCESS_KEY_ID: options.accessKeyId,
    AWS_SECRET_ACCESS_KEY: options.secretAccessKey,
  };
  for (const [name, value] of Object.entries(fn.variables)) {
    const override = options.overrides[name];
    if (override !== undefined) environment[name] = override;
    else if (typeof value === 'string') environment[name] = value;
    else throw new Error(`${fn.id}: ${name} is ${JSON.stringify(value)}, which has no local value; override it.`);
  }
  return environment;
}

export interface Invocation {
  /** What the handler returned (for an HTTP API function: the payload 2.0 response). */
  result?: unknown;
  /** The error the handler threw, as Lambda reports it. */
  error?: { errorType: string; errorMessage: string };
  /** The function's stdout and stderr: its logs (in a warm sandbox, those of all its invocations). */
  logs: string;
  /** The context's awsRequestId, which the function's log lines carry. */
  requestId: string;
}

/**
 * Runs the handler once on `event`. `environment` is the whole environment of the process, as
 * in a Lambda sandbox (see samEnvironment); nothing of the test process's leaks in.
 */
export async function invokeFunction(
  fn: SynthesizedFunction,
  event: unknown,
  environment: Readonly<Record<string, string>>,
): Promise<Invocation> {
  const [invocation] = await invokeFunctionRepeatedly(fn, [event], environment);
  return invocation!;
}

/**
 * Runs the handler on each event in turn in one process, as one Lambda sandbox serves
 * invocations one after the other once it is warm: the first invocation is its cold start.
 */
export async function invokeFunctionRepeatedly(
  fn: SynthesizedFunction,
  events: readonly unknown[],
  environment: Readonly<Record<string, string>>,
): Promise<Invocation[]> {
  const request = {
    codeDirectory: fn.codeDirectory,
    handler: fn.handler,
    functionName: fn.id,
    memorySize: fn.memorySize,
    timeoutMs: fn.timeoutSeconds * 1000,
    events,
  };
  const child = spawn(process.execPath, ['--input-type=module', '--eval', RUNTIME_SOURCE], {
    cwd: fn.codeDirectory,
    env: {
      ...lambdaSandboxVariables(fn),
      ...environment,
    },
    // fd 3 carries the invocations' answers, so whatever the function logs cannot be mistaken for them.
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  let logs = '';
  let answer = '';
  child.stdout!.on('data', (chunk) => (logs += chunk));
  child.stderr!.on('data', (chunk) => (logs += chunk));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk) => (answer += chunk));
  child.stdin!.end(JSON.stringify(request));

  // Lambda stops a function at its timeout; allow a little more for Node's own start.
  const killer = setTimeout(() => child.kill('SIGKILL'), request.timeoutMs * events.length + 5_000);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(killer);

  if (answer === '') {
    throw new Error(`${fn.id} gave no answer (exit code ${exitCode}). Its output:\n${logs}`);
  }
  const invocations = (JSON.parse(answer) as { invocations: Omit<Invocation, 'logs'>[] }).invocations;
  return invocations.map((invocation) => ({ ...invocation, logs }));
}

/** Variables the Lambda runtime image sets in every sandbox, before the function's own. */
function lambdaSandboxVariables(fn: SynthesizedFunction): Record<string, string> {
  return {
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    // An on-demand start, as Lambda (without provisioned concurrency) and `sam local` say.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    LAMBDA_TASK_ROOT: fn.codeDirectory,
    TZ: ':UTC',
    // No developer's ~/.aws files: a sandbox has none.
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
  };
}

/**
 * The child process: a minimal Lambda runtime. It reads the request from stdin, imports the
 * handler's module from the code directory, calls it with each event in turn and a context,
 * writes `{invocations: [{requestId, result} or {requestId, error}, ...]}` to fd 3 and exits
 * (the SDK's keep-alive sockets would hold it open).
 */
const RUNTIME_SOURCE = `
import { existsSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const request = JSON.parse(input);

const dot = request.handler.lastIndexOf('.');
const moduleName = request.handler.slice(0, dot);
const exportName = request.handler.slice(dot + 1);
const file = ['.mjs', '.js', '.cjs'].map((extension) => join(request.codeDirectory, moduleName + extension)).find(existsSync);

const invocations = [];
const answer = () => { writeSync(3, JSON.stringify({ invocations })); process.exit(0); };
const failure = (error) => ({ errorType: error?.name ?? 'Error', errorMessage: String(error?.message ?? error) });
let handler;
try {
  if (!file) throw Object.assign(new Error('Cannot find module ' + moduleName), { name: 'Runtime.ImportModuleError' });
  handler = (await import(pathToFileURL(file).href))[exportName];
  if (typeof handler !== 'function') throw Object.assign(new Error(request.handler + ' is undefined or not exported'), { name: 'Runtime.HandlerNotFound' });
} catch (error) {
  // Every invocation of a sandbox whose init failed fails alike.
  for (const _ of request.events) invocations.push({ requestId: randomUUID(), error: failure(error) });
  answer();
}
for (const event of request.events) {
  const awsRequestId = randomUUID();
  const deadline = Date.now() + request.timeoutMs;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: request.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:' + process.env.AWS_REGION + ':123456789012:function:' + request.functionName,
    memoryLimitInMB: String(request.memorySize),
    awsRequestId,
    logGroupName: '/aws/lambda/' + request.functionName,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {}, fail: () => {}, succeed: () => {},
  };
  try {
    invocations.push({ requestId: awsRequestId, result: await handler(event, context) });
  } catch (error) {
    invocations.push({ requestId: awsRequestId, error: failure(error) });
  }
}
answer();
`;
