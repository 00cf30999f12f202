/**
 * docs/deploy.md's CDK commands, as an operator would paste them: every `npx cdk synth`,
 * `npx cdk deploy`, `npx cdk destroy` and `npm run synth` of its ```sh blocks and of its text is
 * synthesized here, offline and without bundling (the template is what the `-c` options decide),
 * with exactly the context its `-c` options give. A deploy example is synthesized with the
 * context it would deploy with. The examples also keep the page's own rules: no `topicPrefix`
 * (the stack's own prefix scopes its roles: security.md), and an `eventKinds` that keeps the
 * service's notices. The Prerequisites' account-level policy is the one the stack makes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { DISABLED_EVENT_KIND, FAILING_EVENT_KIND } from '../../shared/dead-letters/notices';
import { PROJECT_ROOT } from '../support/npm-start';
import { serviceApp } from '../support/cdk-app';
import { shBlocks } from './sh-blocks';

const PAGE = 'docs/deploy.md';
const CDK_COMMAND = /^(?:npx cdk (?:synth|deploy|destroy)|npm run synth(?: --)?)(?=\s|$)/;

interface CdkCommand {
  where: string;
  text: string;
  context: Record<string, string>;
}

/** A command's words, as the shell splits them (quotes, but no expansions: none are used). */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** The `-c key=value` options of a command; anything else than `-q` and those is refused. */
function contextOf(command: string): Record<string, string> {
  const head = CDK_COMMAND.exec(command)![0];
  const rest = words(command.slice(head.length));
  const context: Record<string, string> = {};
  for (let at = 0; at < rest.length; at++) {
    if (rest[at] === '-q') continue;
    expect([command, rest[at]]).toEqual([command, '-c']);
    const option = /^(\w+)=(.*)$/.exec(rest[++at] ?? '');
    expect([command, option?.[1]]).toEqual([command, expect.any(String)]);
    context[option![1]!] = option![2]!;
  }
  return context;
}

/** Every CDK command of the page: the blocks' (continuation lines joined), then the text's inline ones. */
function cdkCommands(): CdkCommand[] {
  const fromBlocks = shBlocks(PAGE).flatMap((block) =>
    block.text
      .replace(/\s*\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => CDK_COMMAND.test(line))
      .map((text) => ({ where: `${PAGE} > ${block.heading}`, text, context: contextOf(text) })),
  );
  const prose = readFileSync(join(PROJECT_ROOT, PAGE), 'utf8').replace(/```[\s\S]*?```/g, '');
  const inline = [...prose.matchAll(/`([^`\n]+)`/g)]
    .map((match) => match[1]!.trim())
    .filter((text) => CDK_COMMAND.test(text) && / -c /.test(text))
    .map((text) => ({ where: `${PAGE} (text)`, text, context: contextOf(text) }));
  return [...fromBlocks, ...inline];
}

const commands = cdkCommands();

it('finds the deploy example and the synth commands of the SAM sections', () => {
  expect(commands.map((command) => `${command.where}: ${command.text.split(' -c ')[0]}`)).toEqual(
    expect.arrayContaining([
      `${PAGE} > Example: npx cdk deploy`,
      `${PAGE} > Against a deployed stack: npx cdk synth -q`,
      `${PAGE} > Against npm start: npx cdk synth -q`,
    ]),
  );
});

describe.each(commands.map((command) => [`${command.where}: ${command.text}`, command] as const))('%s', (_name, command) => {
  it('synthesizes as written, with exactly its -c options (no "..." left to fill in)', () => {
    expect(command.text).not.toContain('...');
    const { stack } = serviceApp({ context: command.context, bundle: false });
    const template = Template.fromStack(stack);
    expect(Object.keys(template.findResources('AWS::Lambda::Function')).length).toBeGreaterThan(0);
  }, 60_000);

  it('leaves topicPrefix to the stack, and keeps the notices in any eventKinds it sets', () => {
    expect(command.context).not.toHaveProperty('topicPrefix');
    if (command.context.eventKinds !== undefined) {
      const kinds = command.context.eventKinds.split(',').map((kind) => kind.trim());
      expect(kinds).toEqual(expect.arrayContaining([FAILING_EVENT_KIND, DISABLED_EVENT_KIND]));
    }
  });
});

describe("the Prerequisites' account-level subscription filter policy", () => {
  it('is the one resource of its kind the stack makes, named as the page says, and the page shows how to look for another', () => {
    const { stack } = serviceApp({ context: commands.find((command) => command.where.endsWith('> Example'))!.context, bundle: false });
    const policies = Object.values(Template.fromStack(stack).findResources('AWS::Logs::AccountPolicy'));
    expect(policies.map((policy) => [policy.Properties.PolicyType, policy.Properties.PolicyName])).toEqual([
      ['SUBSCRIPTION_FILTER_POLICY', `${stack.topicPrefix}-delivery-attempts`],
    ]);
    const page = readFileSync(join(PROJECT_ROOT, PAGE), 'utf8');
    const prerequisites = page.slice(page.indexOf('## Prerequisites'), page.indexOf('\n## ', page.indexOf('## Prerequisites') + 3));
    expect(prerequisites).toContain('`<topicPrefix>-delivery-attempts`');
    expect(prerequisites).toContain('aws logs describe-account-policies --policy-type SUBSCRIPTION_FILTER_POLICY');
    // Named first among the account-level resources.
    expect(prerequisites.indexOf('SUBSCRIPTION_FILTER_POLICY')).toBeLessThan(prerequisites.indexOf('delivery status log groups'));
  }, 60_000);
});
