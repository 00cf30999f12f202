import { documentClient } from '../shared/aws/dynamodb';
import { refusedByService } from '../shared/aws/refusals';
import { snsClient } from '../shared/aws/sns';
import { replayDeadLettersRequest } from '../shared/contract/request-bodies';
import { replayDeadLetters } from '../shared/dead-letters/replay';
import { claim, deadLetterStoreOf, remove, select, unclaim } from '../shared/data/dead-letters';
import { messageKeepDays, tableName } from '../shared/environment';
import { messageLogOf } from '../shared/data/messages';
import { idempotentRuns } from '../shared/http/idempotency';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation, sendLimitPerPortal } from '../shared/http/operation';
import { logger } from '../shared/logger';
import { replayDeadLettersRoute } from '../shared/operations';
import { deliverableSubscription } from '../shared/subscriptions/deliverable';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';

const repository = repositoryOf({ db: documentClient, tableName }, { find });
const messages = messageLogOf({ db: documentClient, tableName }, messageKeepDays);
const store = deadLetterStoreOf({ db: documentClient, tableName }, { select, claim, unclaim, remove });

/**
 * Publishes the subscription's dead letters again (all kept ones, or those with the given
 * eventIds), at most 100 per request, and removes each once SNS accepted it; each is claimed
 * first, so concurrent replays send it once. Refused while the subscription is deactivated or its
 * endpoint has not confirmed: nothing would arrive. With an Idempotency-Key header, a retry gets
 * the first answer and sends nothing.
 */
export const handler = httpOperation(replayDeadLettersRoute, {
  portalLimit: sendLimitPerPortal,
  body: jsonInput(replayDeadLettersRequest),
  idempotency: idempotentRuns({ client: documentClient, tableName, operationId: 'replayDeadLettersRoute' }),
  run: async ({ portalId, body: { configId, eventIds } }) => {
    const subscription = await deliverableSubscription({ repository, sns: snsClient }, portalId, configId, { activated: true });
    const outcome = await replayDeadLetters({ store, sns: snsClient, messages }, subscription, eventIds);
    for (const { letter, error } of outcome.failed) {
      logger.error('dead letter not replayed: SNS did not accept it; it stays kept', { portalId, configId, eventId: letter.eventId, error: error as Error });
    }
    for (const { letter, error } of outcome.notRemoved) {
      logger.error('dead letter replayed but not removed; a replay sends it again once its claim lapsed (a minute)', { portalId, configId, eventId: letter.eventId, error: error as Error });
    }
    // Nothing went out and SNS refused: the caller learns it as the service's fault (or an outage), not as a success.
    if (outcome.replayed === 0 && outcome.failed.length > 0) refusedByService('Publish')(outcome.failed[0]!.error);
    const { replayed, remaining } = outcome;
    return { message: replayMessage(outcome, eventIds), replayed, remaining };
  },
});

function replayMessage({ replayed, remaining, failed, notFound, claimedElsewhere }: Awaited<ReturnType<typeof replayDeadLetters>>, eventIds?: readonly string[]): string {
  const parts = [
    eventIds && replayed === 0 && failed.length === 0 && claimedElsewhere === 0
      ? 'None of the given eventIds names a dead letter kept for this subscription; nothing was sent.'
      : `${replayed} dead letter${replayed === 1 ? '' : 's'} sent again.`,
  ];
  if (claimedElsewhere > 0) {
    parts.push(`${claimedElsewhere} ${claimedElsewhere === 1 ? 'was' : 'were'} being sent by another replay request at the same time.`);
  }
  if (notFound.length > 0 && replayed + failed.length + claimedElsewhere > 0) parts.push(`${notFound.length} of the given eventIds name${notFound.length === 1 ? 's' : ''} no dead letter kept.`);
  if (failed.length > 0) parts.push(`${failed.length} could not be sent and stay kept; try again shortly.`);
  if (remaining > 0) parts.push(`${remaining} still kept${eventIds ? '' : '; call again to send the next ones'}.`);
  return parts.join(' ');
}
