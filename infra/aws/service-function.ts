/**
 * One Lambda function of the service (an operation's, the dispatcher or the reconciler), with the settings
 * every function shares fixed here once: Node.js 24 on arm64, one CommonJS bundle per handler built by the locally
 * installed esbuild, its own log group with a retention, and a role that starts with no
 * permissions but writing to that log group.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, type CfnFunction, Function as LambdaFunction, LoggingFormat, Runtime, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { bundledCode } from './bundled-code';
import { BUNDLE_MODULE } from './function-bundling';

/** The repository root: entries and the lockfile are resolved from here, wherever cdk runs. */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** SNS actions that list the whole account: IAM has no resource type for them. */
export const ACCOUNT_LISTINGS = ['sns:ListTopics', 'sns:ListSubscriptions'] as const;

export interface ServiceFunctionProps {
  /** The handler's source file, relative to the repository root (`functions/<name>.ts`). */
  readonly entry: string;
  /** The handler's name: `sam local invoke <name>` finds the function by it. */
  readonly name: string;
  readonly description: string;
  /** How long one invocation may run. */
  readonly timeout: Duration;
  /** The service configuration the handler reads at cold start. */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
}

export class ServiceFunction extends Construct {
  /** The handler's name (`functions/<name>.ts`). */
  readonly name: string;
  readonly function: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, { entry, name, description, timeout, environment, logRetention }: ServiceFunctionProps) {
    super(scope, id);
    this.name = name;

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: logRetention,
      // Logs expire anyway; keeping them after `cdk destroy` would only leave orphans behind.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // An explicit role instead of the default one: the default attaches the managed
    // AWSLambdaBasicExecutionRole, which may create log groups and write to any of them.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${name}: writes its own logs and calls only what the function needs.`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Function', {
      code: bundledCode(PROJECT_ROOT, entry),
      // Lambda's Node.js handler setting is <module>.<export> (AWS Lambda Developer Guide, "Define Lambda
      // function handler in Node.js", nodejs-handler).
      handler: `${BUNDLE_MODULE}.handler`,
      description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout,
      role: this.role,
      logGroup: this.logGroup,
      // Lambda's JSON log format: its own lines (platform.start, platform.report...) as JSON, and
      // the application log level as the platform's setting. Lambda gives it to the function as
      // AWS_LAMBDA_LOG_LEVEL, which the logger reads, and drops lines below it by their "level".
      // The logger's lines are JSON already, which Lambda leaves as they are
      // (docs/decisions/logger-and-lambda-json-logs.md).
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.INFO,
      // No NODE_OPTIONS: the bundle maps its own stack traces (function-bundling.ts).
      environment: { ...environment },
    });

    // `sam local invoke <id>` names a function by this id (SAM reads it before the CDK path,
    // whose last segment here would be "Function" for all of them): the handler's name.
    (this.function.node.defaultChild as CfnFunction).addMetadata('SamResourceId', name);
  }

  /**
   * Allows exactly these actions on exactly these resources, under `conditions` if given; "*" is
   * refused (see allowAccountListing for the actions IAM cannot scope).
   */
  allow(actions: readonly string[], resources: readonly string[], conditions?: Record<string, Record<string, unknown>>): void {
    if (resources.includes('*')) throw new Error(`${this.node.path}: grant on named resources, not on "*".`);
    if (actions.length === 0) return;
    this.role.addToPolicy(new PolicyStatement({ actions: [...actions], resources: [...resources], conditions }));
  }

  /**
   * Allows SNS's account-wide listings, which IAM knows no resource for (they must be granted on
   * "*"; a name prefix cannot narrow them). Only these two: any other action is refused.
   */
  allowAccountListing(actions: readonly (typeof ACCOUNT_LISTINGS)[number][]): void {
    const other = actions.filter((action) => !ACCOUNT_LISTINGS.includes(action));
    if (other.length > 0) throw new Error(`${this.node.path}: ${other.join(', ')} can be granted on named resources.`);
    this.role.addToPolicy(new PolicyStatement({ actions: [...actions], resources: ['*'] }));
  }
}
