import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
