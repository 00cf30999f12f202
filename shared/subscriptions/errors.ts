import { BadRequestError } from '../http/errors';

/** Unknown and foreign ids get the same answer: never reveal that another portal's id exists. */
export class SubscriptionNotFoundError extends BadRequestError {
  constructor(configId: string) {
    super(`No subscription with config_id ${configId} exists for this portal.`, 'SUBSCRIPTION_NOT_FOUND');
  }
}

export class SubscriptionLimitError extends BadRequestError {
  constructor(limit: number) {
    super(
      `This portal already has the maximum of ${limit} subscriptions; delete one before creating another.`,
      'SUBSCRIPTION_LIMIT_REACHED',
    );
  }
}
