/**
 * The documentation's ```sh blocks: where each is (its page and the heading it sits under), which
 * of them readme-commands.test.ts runs and why it runs no other, and the tools they may use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/npm-start';

export type Verdict = 'run' | { notRun: string };

/**
 * Every ```sh block by page and by the heading it sits under: run here, or why not. A block
 * meant for a deployed stack (an `aws` command without `--endpoint-url`) is never run, and its
 * reason says it needs an AWS account.
 */
export const BLOCKS: Readonly<Record<string, Readonly<Record<string, Verdict>>>> = {
  'README.md': {
    'Two commands': { notRun: 'installs, starts the stack this suite starts itself, and runs npm test (this suite among them)' },
    'Call the API with curl': 'run',
    'Look inside with the AWS CLI': 'run',
  },
  'docs/api.md': {
    'Idempotent creates': 'run',
    'Calling the API from TypeScript': {
      notRun: 'needs npm start and a receiver; test/local/typescript-client.test.ts generates the same types from the served document and runs the same client',
    },
  },
  'docs/delivery.md': {
    'On a deployed stack': { notRun: "puts an event on a deployed stack's bus, which needs an AWS account; docs/local.md 'Watching a delivery' does the same against npm start" },
  },
  'docs/deploy.md': {
    'Account-level resources': { notRun: "lists the logs account policies of a real AWS account; deploy-commands.test.ts checks the policy the stack makes is the one the block looks for" },
    Example: { notRun: 'cdk deploy needs an AWS account; deploy-commands.test.ts synthesizes it with the same -c options' },
    'The admin page': { notRun: 'cdk deploy needs an AWS account; deploy-commands.test.ts synthesizes it with the same -c options' },
    'Upgrading from filter policies': { notRun: "changes the SNS topics and subscriptions of a deployed stack, which needs an AWS account" },
    'Against a deployed stack': { notRun: 'sam local invoke against the deployed table needs an AWS account, the SAM CLI and Docker; test/infra/sam-invoke.test.ts does the same without them' },
    'Against npm start': { notRun: 'sam local invoke needs the SAM CLI and Docker; test/infra/sam-invoke.test.ts does the same without them' },
  },
  'docs/local.md': {
    'Watching a delivery': 'run',
    'Admin page': { notRun: 'runs the browser suite, which npm test runs' },
  },
  'docs/operations.md': {
    'Commands for a deployed stack': { notRun: "reads and redrives the queues of a deployed stack, which needs an AWS account" },
  },
  'docs/performance.md': {
    'Running it': { notRun: 'the full run takes minutes and proves nothing in a test; test/bench/smoke.test.ts runs npm run bench -- --quick' },
  },
  'docs/receiving.md': {
    'Against npm start': 'run',
    'Against SNS': { notRun: 'needs an AWS account and an endpoint SNS can reach' },
  },
  'docs/reconciliation.md': {
    'Running it': { notRun: 'test/service/reconciliation.cli.test.ts runs npm run reconcile, with and without --dry-run, against a stack of its own' },
  },
  'docs/testing.md': {
    'Install and test': { notRun: 'installs and runs npm test, which runs this suite' },
    'Run one suite': { notRun: 'starts a jest run inside this one; npm test runs every suite' },
    "The documentation's commands": { notRun: 'runs this very suite' },
  },
};

/** What the documented commands may use besides bash's builtins: Node (and its npm), Java, curl, the AWS CLI and POSIX basics. */
export const ALLOWED_TOOLS = ['npm', 'java', 'curl', 'aws', 'cat', 'tee', 'sleep', 'seq', 'grep', 'sed', 'head', 'tail', 'env', 'rm', 'mkdir', 'ls'];

export interface Block {
  page: string;
  heading: string;
  text: string;
}

/** The README and every page of docs/, as paths from the repository root. */
export function pages(): string[] {
  const docs = readdirSync(join(PROJECT_ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.sort().map((name) => `docs/${name}`)];
}

export function shBlocks(page: string): Block[] {
  const blocks: Block[] = [];
  let heading = '';
  let current: string[] | undefined;
  for (const line of readFileSync(join(PROJECT_ROOT, page), 'utf8').split('\n')) {
    if (current) {
      if (line.startsWith('```')) {
        blocks.push({ page, heading, text: current.join('\n') });
        current = undefined;
      } else current.push(line);
    } else if (line.startsWith('```sh')) current = [];
    else if (/^#{1,4} /.test(line)) heading = line.replace(/^#+ /, '');
  }
  return blocks;
}

export function allBlocks(): Block[] {
  return pages().flatMap(shBlocks);
}

export function blockUnder(page: string, heading: string): string {
  const found = shBlocks(page).filter((block) => block.heading === heading);
  expect(found).toHaveLength(1);
  return found[0]!.text;
}

/** The command lines of a block that call the AWS CLI without naming a local endpoint. */
export function awsCallsWithoutEndpoint(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .filter((line) => /(^|[\s;&|(])aws\s+(?!--endpoint-url\s)/.test(line));
}

/** Where a block writes files with `>` or `>>` (an arrow function's `=>` is no redirect). */
export function redirectTargets(text: string): string[] {
  // Comment lines show what a command prints (`<configId>: …`): not redirections.
  const commands = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n');
  return [...commands.matchAll(/(?<![=\-&\d])>>?\s*([^\s;&|)'"]+)/g)].map((match) => match[1]!);
}
