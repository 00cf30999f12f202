/**
 * `npm run reconcile` (infra/local/reconcile.ts): the reconciler run from a shell against the
 * local stack's variables. With --dry-run it reports what it would do, in its summary and in one
 * log line per item, and changes nothing; without, it does it; an unknown option is refused.
 * What a run repairs: reconciliation.test.ts.
 *
 * The suite has a table and a topic prefix of its own (support/reconciliation.ts) and empties
 * both before each test, so every summary is exact.
 */
import { DeleteTopicCommand } from '@aws-sdk/client-sns';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOCAL_SERVICE_ROLE_ARN } from '../../infra/aws/local-account';
import { TEST_ENV } from '../support/test-env';

process.env.TABLE_NAME = 'webhook-subscriptions-reconcile-cli';
process.env.TOPIC_PREFIX = 'webhooks-reconcile-cli';

// The helpers read TABLE_NAME and TOPIC_PREFIX when imported: after they are set above.
const { TABLE_NAME, TOPIC_PREFIX, inspectSns, unchanged, topicsOfPrefix, expectAgreement, createOne, handMadeTopic, emptyTableAndTopics } = await import(
  '../support/reconciliation'
);
const { freshPortal } = await import('../support/api');

beforeEach(emptyTableAndTopics);

describe('npm run reconcile', () => {
  const run = promisify(execFile);
  const reconcileCli = (...flags: string[]) =>
    run(join(process.cwd(), 'node_modules/.bin/tsx'), ['infra/local/reconcile.ts', ...flags], {
      cwd: process.cwd(),
      // The local stack's variables, pointed at this suite's emulators, table and prefix.
      env: {
        // Node 24 of the devDependency first, as npm scripts have it.
        PATH: `${join(process.cwd(), 'node_modules/.bin')}:${process.env.PATH}`,
        DELIVERY_DEAD_LETTER_QUEUE_ARN: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN,
        AWS_ENDPOINT_URL_DYNAMODB: process.env.AWS_ENDPOINT_URL_DYNAMODB,
        AWS_ENDPOINT_URL_SNS: process.env.AWS_ENDPOINT_URL_SNS,
        TABLE_NAME,
        TOPIC_PREFIX,
        // Its log lines too, as a developer sees them: in the format it picks by default.
        POWERTOOLS_LOG_LEVEL: 'INFO',
      },
      timeout: 60_000,
    });
  const summaryOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

  it('with --dry-run reports what it would do and changes nothing; without, does it; then finds nothing to do', async () => {
    const orphan = await handMadeTopic(60);
    const { topicArn } = await createOne(freshPortal());
    await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
    const seen = { topicsSeen: 1, recordsSeen: 1, skippedYoung: 0, subscriptionsGone: 0, errors: 0, unrecognizedTopics: [] };

    const dryRun = await reconcileCli('--dry-run');
    expect(summaryOf(dryRun.stdout)).toEqual({
      ...seen,
      wouldDeleteOrphanTopics: 1,
      wouldRepairRecords: 1,
      wouldUpdateSubscriptionStates: 0,
      wouldSetTopicPolicies: 0,
      wouldSetDeliveryPolicies: 0,
      wouldSetSubscriptionSettings: 0,
      wouldSetLogRetentions: 0,
      dryRun: true,
    });
    expect(await topicsOfPrefix()).toEqual([orphan]);

    const run = await reconcileCli();
    expect(summaryOf(run.stdout)).toEqual({
      ...seen,
      orphanTopicsDeleted: 1,
      recordsRepaired: 1,
      subscriptionStatesUpdated: 0,
      topicPoliciesSet: 0,
      deliveryPoliciesSet: 0,
      subscriptionSettingsSet: 0,
      logRetentionsSet: 0,
      dryRun: false,
    });
    await expectAgreement([], [LOCAL_SERVICE_ROLE_ARN]);

    // The recreated topic's policy is remembered: nothing to set again.
    expect(summaryOf((await reconcileCli()).stdout)).toEqual({ ...unchanged(1, 1), topicPoliciesSet: 0, logRetentionsSet: 0 });
  }, 120_000);

  it('prints a dry run’s summary once, and every log line of it says what would be done, not what was', async () => {
    const orphan = await handMadeTopic(60);
    const { topicArn } = await createOne(freshPortal());
    await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));

    const { stdout, stderr } = await reconcileCli('--dry-run');

    const output = `${stdout}${stderr}`;
    const lines = stdout.trim().split('\n');
    // The summary: the last line, and nowhere else.
    expect(output.split('"topicsSeen"')).toHaveLength(2);
    expect(output.split('wouldRepairRecords')).toHaveLength(2);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ dryRun: true, wouldDeleteOrphanTopics: 1, wouldRepairRecords: 1 });
    expect(output).not.toMatch(/orphanTopicsDeleted|recordsRepaired/);
    // The log lines: one readable line per item, each saying "would".
    const logLines = lines.slice(0, -1);
    expect(logLines).toEqual([
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO  reconcileTopics orphan topic would be deleted topicArn=${orphan}$`)),
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO  reconcileTopics record would be repaired portalId=\\S+ configId=\\S+ topicArn=${topicArn}$`)),
      expect.stringMatching(/^\d\d:\d\d:\d\d INFO  reconcileTopics reconciliation summary$/),
    ]);
    expect(output).not.toMatch(/topic deleted|record repaired/);
    expect(await topicsOfPrefix()).toEqual([orphan]);
  }, 60_000);

  it('refuses an unknown option, naming it', async () => {
    await expect(reconcileCli('--dry')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('unknown option --dry') });
  }, 60_000);
});
