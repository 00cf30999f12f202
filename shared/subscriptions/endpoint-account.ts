/**
 * Where an endpoint lives, and what follows from it. SNS confirms an sqs or lambda subscription
 * by itself when the queue or function is in the topic's own account; every other one stays
 * pending until the endpoint confirms it (http/https by visiting SubscribeURL, e-mail by a click,
 * a queue or function of another account by its owner) (SNS API reference, Subscribe). So an
 * own-account endpoint would get deliveries without anybody's consent: the service refuses those
 * unless a deployment setting allows its account (ALLOWED_ENDPOINT_ACCOUNTS).
 */
import { EndpointInServiceAccountError } from './errors';
import type { Subscription } from './model';

/** The account of an ARN (`arn:<partition>:<service>:<region>:<account>:...`). */
export function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}

function isInAccount({ protocol, endpoint }: Pick<Subscription, 'protocol' | 'endpoint'>, account: string): boolean {
  return (protocol === 'sqs' || protocol === 'lambda') && accountOf(endpoint) === account;
}

/**
 * Refuses an sqs or lambda endpoint of the service's own account (`serviceAccount`, the account
 * of its topics) unless `allowedAccounts` lists that account.
 */
export function checkEndpointAccount(
  endpoint: Pick<Subscription, 'protocol' | 'endpoint'>,
  serviceAccount: string,
  allowedAccounts: readonly string[],
): void {
  if (isInAccount(endpoint, serviceAccount) && !allowedAccounts.includes(serviceAccount)) {
    throw new EndpointInServiceAccountError(endpoint.protocol);
  }
}

/** Whether SNS confirms a new subscription of this endpoint itself (see above). */
export function confirmedAtCreation(endpoint: Pick<Subscription, 'protocol' | 'endpoint'>, topicAccount: string): boolean {
  return isInAccount(endpoint, topicAccount);
}
