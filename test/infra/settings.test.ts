/**
 * Deployment settings from CDK context: what synth refuses (with a message saying what to
 * pass), what each key changes in the template, and that the stack's defaults and checks are
 * the functions' own (shared/config.ts), so a deployed function never fails its cold start on
 * a value synth accepted. Synthesized without bundling: only the template matters here.
 */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SETTINGS, deploymentSettingsFrom } from '../../infra/aws/deployment-settings';
import { LOCAL_SERVICE_ROLE_ARN } from '../../infra/aws/local-account';
import { PROJECT_ROOT } from '../../infra/aws/service-function';
import { OPERATION_PERMISSIONS } from '../../infra/aws/operation-permissions';
import { ConfigurationError, loadConfig } from '../../shared/config';
import { OPERATIONS } from '../../shared/operations';
import { SETTINGS } from '../../shared/settings';
import { REQUIRED_CONTEXT, serviceApp, validationReportsOf } from '../support/cdk-app';

function synthWith(context: Record<string, unknown>): Template {
  return Template.fromStack(serviceApp({ context, bundle: false }).stack);
}

const settingsFrom = (context: Record<string, unknown>) => {
  const withRequired: Record<string, unknown> = { ...REQUIRED_CONTEXT, ...context };
  return deploymentSettingsFrom((key) => withRequired[key]);
};

describe('synth without what only the operator knows', () => {
  it('fails without the issuer, saying what to pass', () => {
    expect(() => synthWith({ jwtAudience: 'webhooks-api' })).toThrow(/jwtIssuer is required: .*-c jwtIssuer=https:\/\//);
  });

  it('fails without the audience, saying what to pass', () => {
    expect(() => synthWith({ jwtIssuer: 'https://auth.example.com' })).toThrow(/jwtAudience is required: .*-c jwtAudience=/);
  });

  it('names both, with a complete example command, when neither is given', () => {
    expect(() => synthWith({})).toThrow(
      /jwtIssuer is required[\s\S]*jwtAudience is required[\s\S]*npx cdk synth -c jwtIssuer=https:\/\/\S+ -c jwtAudience=\S+/,
    );
  });
});

describe("the README's synth command", () => {
  it('is `npm run synth` with example values that synth accepts, quiet (no template on the terminal)', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const command = /`npm run synth -- ((?:-c \w+=\S+ ?)+)`/.exec(readme);
    expect(command).not.toBeNull();
    const context = Object.fromEntries([...command![1]!.matchAll(/-c (\w+)=(\S+)/g)].map(([, key, value]) => [key, value]));
    expect(Object.keys(context).sort()).toEqual(['jwtAudience', 'jwtIssuer']);
    expect(() => synthWith(context)).not.toThrow();
    const scripts = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.synth).toBe('cdk synth -q');
  });
});

describe('synth with a bad value', () => {
  it.each([
    ['jwtIssuer', 'http://auth.example.com', /jwtIssuer must be an https:\/\/ URL/],
    ['jwtIssuer', 'auth.example.com', /jwtIssuer must be an https:\/\/ URL/],
    ['jwtAudience', ' , ', /jwtAudience is required/],
    ['portalClaim', 'portal id', /portalClaim must be a JWT claim name/],
    ['topicPrefix', 'web hooks', /topicPrefix must be 1-219 characters/],
    ['topicPrefix', 'x'.repeat(220), /topicPrefix must be 1-219 characters/],
    ['maxSubscriptionsPerPortal', '0', /maxSubscriptionsPerPortal must be a whole number from 1 to 100000 \(got "0"\)/],
    ['maxSubscriptionsPerPortal', 'ten', /maxSubscriptionsPerPortal must be a whole number/],
    ['maxSubscriptionsPerPortal', '2.5', /maxSubscriptionsPerPortal must be a whole number/],
    ['eventKinds', 'asset_bank.media.create, bad kind', /eventKinds must be .*\(invalid: bad kind\)/],
    ['eventKinds', ',', /eventKinds must be .*\(got none\)/],
    ['throttlingRateLimit', '-5', /throttlingRateLimit must be a number from 1 to 10000/],
    ['throttlingBurstLimit', '1.5', /throttlingBurstLimit must be a whole number from 1 to 5000/],
    ['throttlingBurstLimit', '9999', /throttlingBurstLimit must be a whole number from 1 to 5000/],
    ['eventBusName', 'default', /eventBusName must be .* not "default"/],
    ['eventBusName', 'portal events', /eventBusName must be 1-256 letters/],
    ['reconcileEveryMinutes', '0', /reconcileEveryMinutes must be a whole number from 1 to 1440 \(got "0"\)/],
    ['reconcileEveryMinutes', '7.5', /reconcileEveryMinutes must be a whole number/],
    ['reconcileGraceMinutes', '0', /reconcileGraceMinutes must be a whole number of minutes from 1 to 1440/],
    ['allowedEndpointAccounts', '123456789012,12345', /allowedEndpointAccounts must be a comma-separated list of 12-digit AWS account ids \(invalid: 12345\)/],
    ['deliveryStatusSuccessSampleRate', '150', /deliveryStatusSuccessSampleRate must be a whole percentage from 0 to 100/],
    ['deliveryStatusSuccessSampleRate', '12.5', /deliveryStatusSuccessSampleRate must be a whole percentage/],
    ['attemptKeepDays', '0', /attemptKeepDays must be a whole number of days from 1 to 90/],
    ['messageKeepDays', '91', /messageKeepDays must be a whole number of days from 1 to 90/],
    ['operatorEmails', 'ops@example.com, ops.example.com', /operatorEmails must be a comma-separated list of e-mail addresses \(invalid: ops.example.com\)/],
  ])('fails for %s=%j, naming the key', (key, value, message) => {
    expect(() => synthWith({ ...REQUIRED_CONTEXT, [key]: value })).toThrow(message);
  });
});

describe('synth with every key set', () => {
  const context = {
    jwtIssuer: 'https://login.example.com/realms/portal',
    jwtAudience: 'webhooks-api, portal-admin',
    portalClaim: 'https://example.com/portal',
    topicPrefix: 'acme_webhooks',
    maxSubscriptionsPerPortal: '25',
    eventKinds: 'asset_bank.media.create,workflow.job.create,asset_bank.media.create',
    throttlingRateLimit: '12.5',
    throttlingBurstLimit: '40',
    eventBusName: 'acme-portal-events',
    reconcileEveryMinutes: '45',
    reconcileGraceMinutes: '30',
    allowedEndpointAccounts: '123456789012, 210987654321',
    messageKeepDays: '45',
  };
  let template: Template;
  beforeAll(() => {
    template = synthWith(context);
  });

  it('gives every function the configuration', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    // The operations, the dispatcher, the dead-letter forwarder and recorder, the attempts consumer, the reconciler, the retry sweep and the recovery worker.
    expect(functions).toHaveLength(OPERATIONS.length + 7);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        TOPIC_PREFIX: 'acme_webhooks',
        MAX_SUBSCRIPTIONS_PER_PORTAL: '25',
        PORTAL_CLAIM: 'https://example.com/portal',
        EVENT_KINDS: 'asset_bank.media.create,workflow.job.create',
        MESSAGE_KEEP_DAYS: '45',
      });
    }
  });

  it('checks the issuer and every audience', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: { Issuer: context.jwtIssuer, Audience: ['webhooks-api', 'portal-admin'] },
    });
  });

  it('throttles the stage as asked', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 12.5, ThrottlingBurstLimit: 40 },
    });
  });

  it('scopes the SNS permissions to the topic prefix', () => {
    const resources = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      policy.Properties.PolicyDocument.Statement.filter((statement: { Action: string[] }) =>
        [statement.Action].flat().some((action) => action.startsWith('sns:')),
      ).map((statement: { Resource: unknown }) => JSON.stringify(statement.Resource)),
    );
    // Every function that calls SNS (the operations that do, the dispatcher, the reconciler, the
    // retry sweep and the recovery worker), and SNS's own right to send to the delivery dead-letter queue; besides
    // the reconciler's account-wide listings, which IAM can only grant on "*".
    const onTopics = resources.filter((resource) => resource !== '"*"');
    const callingSns = OPERATIONS.filter((op) => OPERATION_PERMISSIONS[op.id].topics.length > 0).length + 4;
    expect(onTopics).toHaveLength(callingSns);
    expect(resources.filter((resource) => resource === '"*"')).toHaveLength(1);
    for (const resource of onTopics) expect(resource).toContain('":acme_webhooks-*"');
    const [deadLetterPolicy] = Object.values(template.findResources('AWS::SQS::QueuePolicy')).filter((policy) =>
      JSON.stringify(policy).includes('sns.amazonaws.com'),
    );
    expect(JSON.stringify(deadLetterPolicy!.Properties.PolicyDocument)).toContain('":acme_webhooks-*"');
  });

  it('runs the reconciler as often as asked, with the grace period asked', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(45 minutes)' });
    const reconciler = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties.Environment.Variables.RECONCILE_GRACE_MINUTES !== undefined,
    );
    expect(reconciler.map((fn) => fn.Properties.Environment.Variables.RECONCILE_GRACE_MINUTES)).toEqual(['30']);
  });

  it('lets create and confirm accept own-account endpoints of the accounts asked, and no other function', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const allowing = functions.filter((fn) => fn.Properties.Environment.Variables.ALLOWED_ENDPOINT_ACCOUNTS !== undefined);
    expect(allowing.map((fn) => /\((\w+)\)$/.exec(fn.Properties.Description)?.[1]).sort()).toEqual([
      'confirmSubscriptionRoute',
      'createSubscriptionRoute',
    ]);
    for (const fn of allowing) expect(fn.Properties.Environment.Variables.ALLOWED_ENDPOINT_ACCOUNTS).toBe('123456789012,210987654321');
  });

  it('names the portal-events bus as asked', () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'acme-portal-events' });
  });

  it('accepts numbers and lists as cdk.json gives them, not only strings', () => {
    expect(
      settingsFrom({ maxSubscriptionsPerPortal: 25, jwtAudience: ['a', 'b'], throttlingRateLimit: 12.5 }),
    ).toMatchObject({ maxSubscriptionsPerPortal: 25, jwtAudience: ['a', 'b'], throttlingRateLimit: 12.5 });
  });
});

describe('the settings and the functions configuration', () => {
  it('have the same defaults', () => {
    const functionDefaults = loadConfig({ TABLE_NAME: 'subscriptions' });
    const settings = settingsFrom({});

    expect(settings).toMatchObject({
      maxSubscriptionsPerPortal: functionDefaults.maxSubscriptionsPerPortal,
      portalClaim: functionDefaults.portalClaim,
      eventKinds: functionDefaults.eventKinds,
    });
    expect(settings.allowedEndpointAccounts).toEqual(functionDefaults.allowedEndpointAccounts);
    expect(settings.allowedEndpointAccounts).toEqual([]);
    expect(DEFAULT_SETTINGS).toMatchObject({ maxSubscriptionsPerPortal: 10, portalClaim: 'portal_id' });
    // The topic prefix is the stack's own unless set (test/infra/template/least-privilege.ts).
    expect(settings.topicPrefix).toBeUndefined();
  });

  // Each value, as context key and as the environment variable the stack turns it into.
  it.each([
    ['topicPrefix', 'TOPIC_PREFIX', ['webhooks', 'a', 'A_b-9', 'x'.repeat(219), 'x'.repeat(220), 'a.b', 'a b', 'ü']],
    ['maxSubscriptionsPerPortal', 'MAX_SUBSCRIPTIONS_PER_PORTAL', ['1', '10', '100000', '100001', '0', '-1', '1e3', '2.5', 'x']],
    ['portalClaim', 'PORTAL_CLAIM', ['portal_id', 'https://example.com/portal', 'custom:portal', 'a b', 'p"q', 'x'.repeat(129)]],
    ['eventKinds', 'EVENT_KINDS', ['a.b', 'a.b,c:d', ' a.b , c ', 'a b', 'a.b,%']],
    ['reconcileGraceMinutes', 'RECONCILE_GRACE_MINUTES', ['1', '15', '1440', '0', '1441', '2.5', '-1', 'x']],
    ['allowedEndpointAccounts', 'ALLOWED_ENDPOINT_ACCOUNTS', ['123456789012', ' 123456789012 , 000000000000 ', '', '12345678901', '1234567890123', 'abc', '123456789012,x']],
  ])('accept and refuse the same %s values (%s)', (contextKey, variable, values) => {
    for (const value of values) {
      const stackAccepts = accepts(() => settingsFrom({ [contextKey]: value }));
      const functionAccepts = accepts(() => loadConfig({ TABLE_NAME: 'subscriptions', [variable]: value }));
      expect({ value, stackAccepts }).toEqual({ value, stackAccepts: functionAccepts });
    }
  });
});

function accepts(read: () => unknown): boolean {
  try {
    read();
    return true;
  } catch (error) {
    if (error instanceof ConfigurationError || (error as Error).name === 'DeploymentSettingsError') return false;
    throw error;
  }
}

describe('synth for sam local invoke against npm start', () => {
  it('declares the local endpoints in every function, and warns not to deploy it', () => {
    const { app, stack } = serviceApp({
      context: {
        ...REQUIRED_CONTEXT,
        localDynamoDbEndpoint: 'http://127.0.0.1:8000',
        localSnsEndpoint: 'http://127.0.0.1:9911',
      },
      bundle: false,
    });
    const template = Template.fromStack(stack);
    // Said at synth, in the validation report the CDK writes (kept by the suite, not printed).
    expect(validationReportsOf(app).join('\n')).toContain('do not deploy it.');

    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(OPERATIONS.length + 7);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000',
        AWS_ENDPOINT_URL_SNS: 'http://127.0.0.1:9911',
      });
    }
    // The functions that create topics name the local stack's principal as their one publisher.
    const publishers = functions.flatMap((fn) => fn.Properties.Environment.Variables.TOPIC_PUBLISHER_ARNS ?? []);
    expect(publishers).toEqual([LOCAL_SERVICE_ROLE_ARN, LOCAL_SERVICE_ROLE_ARN]);
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('sam local invoke only'))).toHaveLength(1);
  });

  it.each([
    [{ localDynamoDbEndpoint: 'http://127.0.0.1:8000' }, /localDynamoDbEndpoint and localSnsEndpoint go together/],
    [{ localDynamoDbEndpoint: '127.0.0.1:8000', localSnsEndpoint: 'http://127.0.0.1:9911' }, /localDynamoDbEndpoint must be an http:\/\/ or https:\/\/ URL/],
  ])('refuses %j', (context, message) => {
    expect(() => settingsFrom(context)).toThrow(message);
  });

  it('declares no endpoints by default', () => {
    expect(settingsFrom({}).localEndpoints).toBeUndefined();
  });
});

describe('operator e-mails', () => {
  it('are none by default, and read as a trimmed list', () => {
    expect(settingsFrom({}).operatorEmails).toEqual([]);
    expect(settingsFrom({ operatorEmails: ' ops@example.com , oncall@example.org ' }).operatorEmails).toEqual([
      'ops@example.com',
      'oncall@example.org',
    ]);
  });
});

describe('a context key synth does not know', () => {
  it('is refused, naming it and the nearest known key', () => {
    expect(() => synthWith({ ...REQUIRED_CONTEXT, deliveryRetrySchdule: '5m' })).toThrow(
      /deliveryRetrySchdule is an unknown context key; did you mean deliveryRetrySchedule\?/,
    );
    expect(() => synthWith({ ...REQUIRED_CONTEXT, colour: 'blue' })).toThrow(/colour is an unknown context key \(every key: docs\/configuration\.md\)/);
  });

  it("passes the CDK's own keys and cdk.json's", () => {
    expect(() =>
      synthWith({ ...REQUIRED_CONTEXT, '@aws-cdk/core:newFlag': true, 'aws-cdk:x': 1, 'cdk-y': 1, 'a:b': 1, 'a/b': 1 }),
    ).not.toThrow();
  });
});

describe("the settings table's readers", () => {
  // Each function's bundle, as esbuild keeps what it imports: the variables in it are those it reads.
  it('are, for each function setting, the functions whose bundle holds its variable', async () => {
    const functions = readdirSync(join(PROJECT_ROOT, 'functions')).map((file) => file.replace(/\.ts$/, '')).sort();
    const result = await build({
      entryPoints: Object.fromEntries(functions.map((name) => [name, join(PROJECT_ROOT, 'functions', `${name}.ts`)])),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      outdir: '/out',
      logLevel: 'silent',
    });
    const codeOf = (name: string) => result.outputFiles.find((file) => file.path === `/out/${name}.js`)!.text;
    for (const setting of SETTINGS.filter((one) => one.kind === 'function')) {
      const holding = functions.filter((name) => codeOf(name).includes(`"${setting.variable}"`));
      expect({ variable: setting.variable, readBy: holding }).toEqual({ variable: setting.variable, readBy: [...setting.readBy].sort() });
    }
  }, 60_000);
});
