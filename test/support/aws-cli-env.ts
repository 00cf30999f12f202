import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';

/**
 * The AWS CLI to run: `aws` as found on PATH, except that a pyenv shim is resolved once to the
 * executable it would run (`pyenv which aws`). The shim's own bash start cost as much CPU as the
 * CLI's, and the suites run the CLI dozens of times; the CLI run is the same.
 */
export const AWS_CLI = resolvedAwsCli();

function resolvedAwsCli(): string {
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .map((directory) => join(directory, 'aws'))
    .find((candidate) => {
      try {
        accessSync(candidate, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  if (!onPath || !/[\\/]shims[\\/]aws$/.test(onPath)) return 'aws';
  try {
    return execFileSync('pyenv', ['which', 'aws'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || 'aws';
  } catch {
    return 'aws';
  }
}

/**
 * The environment for running the AWS CLI against the emulators: dummy credentials and nothing
 * from the user's own AWS setup (no profile, no config file, no endpoint variables, which
 * global setup sets for the handlers). The CLI v1 reads its region from AWS_DEFAULT_REGION,
 * not AWS_REGION, so both are set.
 */
export function awsCliEnvironment(): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_'))),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_PAGER: '',
    AWS_CONFIG_FILE: join(tmpdir(), 'webhooks-test-no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(tmpdir(), 'webhooks-test-no-aws-credentials'),
  };
}

const cliEnv = awsCliEnvironment();

/** Runs the AWS CLI against the emulators (awsCliEnvironment) and answers its JSON output. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI's JSON output
export async function awsCli(...args: string[]): Promise<any> {
  try {
    const { stdout } = await promisify(execFile)(AWS_CLI, [...args, '--output', 'json'], { env: cliEnv, timeout: 30_000 });
    return JSON.parse(stdout);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') throw new Error('The AWS CLI (`aws`) is not installed or not on PATH; this test needs it.');
    throw new Error(`aws ${args.slice(0, 2).join(' ')} failed: ${failure.stderr ?? failure.message}`);
  }
}
