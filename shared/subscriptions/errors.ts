/**
 * Why a subscription operation cannot be done as asked. The message is written for the caller
 * (it says what to fix and names no internals), so whoever answers the caller may show it as
 * is. Each is a RefusalError naming its code; the API answers them 400 (shared/http/domain-errors.ts).
 */
import { RefusalError } from '../refusal-error';

/** Unknown and foreign ids get the same error: never reveal that another portal's id exists. */
export class SubscriptionNotFoundError extends RefusalError {
  override readonly name = 'SubscriptionNotFoundError';
  readonly code = 'SUBSCRIPTION_NOT_FOUND';
  constructor(readonly configId: string) {
    super(`No subscription with config_id ${configId} exists for this portal.`);
  }
}

/** The portal has as many subscriptions as it may (MAX_SUBSCRIPTIONS_PER_PORTAL). */
export class SubscriptionLimitReachedError extends RefusalError {
  override readonly name = 'SubscriptionLimitReachedError';
  readonly code = 'SUBSCRIPTION_LIMIT_REACHED';
  constructor(readonly limit: number) {
    super(`This portal already has the maximum of ${limit} subscriptions; delete one before creating another.`);
  }
}

/**
 * SNS would not subscribe the endpoint because of the endpoint itself (an InvalidParameter that
 * names it): the caller must send another one. SNS refusals of the service's own making are not this.
 */
export class EndpointRefusedError extends RefusalError {
  override readonly name = 'EndpointRefusedError';
  readonly code = 'ENDPOINT_REFUSED';
  constructor(
    readonly protocol: string,
    options?: ErrorOptions,
  ) {
    super(`SNS refused the endpoint for protocol ${protocol}; check that it is a valid, reachable ${protocol} endpoint.`, options);
  }
}

/**
 * An sqs or lambda endpoint in the service's own AWS account, which no deployment setting
 * allows: SNS would confirm such a subscription by itself, without the endpoint owner's consent
 * (SNS API reference, Subscribe), so any portal could have the service deliver into any queue or
 * function of its account.
 */
export class EndpointInServiceAccountError extends RefusalError {
  override readonly name = 'EndpointInServiceAccountError';
  readonly code = 'ENDPOINT_IN_SERVICE_ACCOUNT';
  constructor(readonly protocol: string) {
    super(
      `The ${protocol} endpoint is in the service's own AWS account, which does not accept subscriptions of its ` +
        `queues and functions; use a ${protocol === 'sqs' ? 'queue' : 'function'} of your own account.`,
    );
  }
}

/** A confirmation was asked for a subscription whose endpoint has already confirmed it. */
export class AlreadyConfirmedError extends RefusalError {
  override readonly name = 'AlreadyConfirmedError';
  readonly code = 'ALREADY_CONFIRMED';
  constructor(readonly configId: string) {
    super(`The endpoint of subscription ${configId} has already confirmed it; there is nothing to confirm.`);
  }
}

/** Replay asked of a deactivated subscription: nothing would be delivered to it. */
export class SubscriptionDeactivatedError extends RefusalError {
  override readonly name = 'SubscriptionDeactivatedError';
  readonly code = 'SUBSCRIPTION_DEACTIVATED';
  constructor(readonly configId: string) {
    super(`Subscription ${configId} is deactivated, so nothing would be delivered; activate it (status 1) first.`);
  }
}

/**
 * A message asked for (a test event, a replay) while the endpoint has not confirmed the
 * subscription: SNS would deliver nothing to it (SNS state `pending` or `unsubscribed`).
 */
export class EndpointNotConfirmedError extends RefusalError {
  override readonly name = 'EndpointNotConfirmedError';
  readonly code = 'ENDPOINT_NOT_CONFIRMED';
  constructor(
    readonly configId: string,
    readonly state: 'pending' | 'unsubscribed',
  ) {
    super(
      state === 'pending'
        ? `The endpoint of subscription ${configId} has not confirmed it yet, so nothing would arrive; confirm it (the SubscribeURL SNS sent) first.`
        : `The endpoint of subscription ${configId} is no longer subscribed, so nothing would arrive; ask it to confirm again with POST /confirm first.`,
    );
  }
}

/**
 * An http/https endpoint whose host can never be a public receiver: an IP literal that is
 * loopback, private, link-local (instance metadata among them), unspecified or otherwise reserved,
 * or `localhost`. SNS cannot deliver to private addresses, and the service must not be a way to
 * reach its own network (endpoint-url.ts).
 */
export class EndpointNotPublicError extends RefusalError {
  override readonly name = 'EndpointNotPublicError';
  readonly code = 'ENDPOINT_NOT_PUBLIC';
  constructor(
    readonly host: string,
    readonly kind: string,
  ) {
    super(`The endpoint's host ${host} is ${kind}, which cannot receive webhooks; use a public host name or address.`);
  }
}

/** Basic-auth credentials in a plain http:// endpoint: the password would cross the network in clear. */
export class CredentialsOverHttpError extends RefusalError {
  override readonly name = 'CredentialsOverHttpError';
  readonly code = 'ENDPOINT_CREDENTIALS_OVER_HTTP';
  constructor() {
    super('The endpoint carries a user name or password over plain http, which would send them in clear; use an https:// endpoint.');
  }
}

/**
 * A confirmation asked for an endpoint whose password SNS no longer holds: the service keeps a
 * password only in the endpoint's SNS subscription (docs/security.md, "Endpoint credentials"),
 * and that subscription is gone (the endpoint unsubscribed, never confirmed in time, or its topic
 * was lost).
 */
export class EndpointCredentialsGoneError extends RefusalError {
  override readonly name = 'EndpointCredentialsGoneError';
  readonly code = 'ENDPOINT_CREDENTIALS_GONE';
  constructor(readonly configId: string) {
    super(
      `The endpoint of subscription ${configId} carries a password, which the service keeps only in its SNS subscription, ` +
        'and that subscription is gone; delete the subscription and create it again with the password.',
    );
  }
}

/** GET /attempts of an e-mail subscription: SNS logs no delivery status for e-mail. */
export class AttemptsNotRecordedError extends RefusalError {
  override readonly name = 'AttemptsNotRecordedError';
  readonly code = 'ATTEMPTS_NOT_RECORDED';
  constructor(readonly protocol: string) {
    super(`SNS records no delivery attempts for ${protocol} subscriptions; only http, https, sqs and lambda endpoints have them.`);
  }
}

/**
 * A throttle (`maxReceivesPerSecond`) asked for a subscription whose protocol SNS does not
 * throttle: only http/https deliveries take a custom delivery policy ("Amazon SNS message
 * delivery retries": "Only HTTP/S supports custom policies").
 */
export class ThrottleNotSupportedError extends RefusalError {
  override readonly name = 'ThrottleNotSupportedError';
  readonly code = 'THROTTLE_NOT_SUPPORTED';
  constructor(readonly protocol: string) {
    super(`maxReceivesPerSecond applies to http and https subscriptions only, and this one's protocol is ${protocol}; leave it out.`);
  }
}

/** No message of that event id is logged for the subscription (never sent to it, or past MESSAGE_KEEP_DAYS). */
export class MessageNotFoundError extends RefusalError {
  override readonly name = 'MessageNotFoundError';
  readonly code = 'MESSAGE_NOT_FOUND';
  constructor(readonly eventId: string) {
    super(`No message with event_id ${eventId} was sent to this subscription in the days the message log keeps.`);
  }
}

/** A recovery's `since` earlier than the message log keeps (MESSAGE_KEEP_DAYS): what is older cannot be sent. */
export class WindowNotKeptError extends RefusalError {
  override readonly name = 'WindowNotKeptError';
  readonly code = 'WINDOW_NOT_KEPT';
  constructor(readonly keptSince: string) {
    super(`since must not be earlier than ${keptSince}: the message log keeps messages that long, and nothing older can be sent again.`);
  }
}
