/**
 * Why a subscription operation cannot be done as asked. The message is written for the caller
 * (it says what to fix and names no internals), so whoever answers the caller may show it as
 * is; shared/http/domain-errors.ts gives each error its status and code.
 */

/** Unknown and foreign ids get the same error: never reveal that another portal's id exists. */
export class SubscriptionNotFoundError extends Error {
  override readonly name = 'SubscriptionNotFoundError';
  constructor(readonly configId: string) {
    super(`No subscription with config_id ${configId} exists for this portal.`);
  }
}

/** The portal has as many subscriptions as it may (MAX_SUBSCRIPTIONS_PER_PORTAL). */
export class SubscriptionLimitReachedError extends Error {
  override readonly name = 'SubscriptionLimitReachedError';
  constructor(readonly limit: number) {
    super(`This portal already has the maximum of ${limit} subscriptions; delete one before creating another.`);
  }
}

/** SNS would not subscribe the endpoint (InvalidParameterException): the caller must send another one. */
export class EndpointRefusedError extends Error {
  override readonly name = 'EndpointRefusedError';
  constructor(
    readonly protocol: string,
    options?: ErrorOptions,
  ) {
    super(`SNS refused the endpoint for protocol ${protocol}; check that it is a valid, reachable ${protocol} endpoint.`, options);
  }
}
