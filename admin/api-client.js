// The page's one door to the service: the OpenAPI document (where the routes and their scopes,
// the token endpoint, the catalog, the protocols and each one's endpoint form are), the token
// endpoint and the API. Every failure
// becomes an ApiError carrying the service's own message and, where it names them, the fields.

/** Fields of the forms a message can be about; `events.2` is about `events`. */
const FORM_FIELDS = new Set(['name', 'endpoint', 'protocol', 'events', 'config_id', 'configId', 'status', 'since', 'until']);

export class ApiError extends Error {
  /**
   * @param {number} status HTTP status (0: no answer at all)
   * @param {string} message the service's message, as it gave it
   * @param {Map<string, string>} fieldMessages message per form field, when the answer names fields
   */
  constructor(status, message, fieldMessages = new Map()) {
    super(message);
    this.status = status;
    this.fieldMessages = fieldMessages;
  }
}

/** Refusals about one field of a request, by their `code`: shown on that field. */
const FIELD_OF_CODE = new Map([
  ...['ENDPOINT_NOT_PUBLIC', 'ENDPOINT_CREDENTIALS_OVER_HTTP', 'ENDPOINT_IN_SERVICE_ACCOUNT', 'ENDPOINT_REFUSED'].map((code) => [code, 'endpoint']),
  // A recovery's `since` earlier than the message log keeps.
  ['WINDOW_NOT_KEPT', 'since'],
]);

/**
 * The fields an error answer concerns: its `errors: [{field, message}]` when it has them; the
 * field a refusal's `code` is about (the endpoint, a recovery's since); otherwise a message of the
 * form "field: what is wrong", as the service's validation gives it.
 */
export function fieldMessagesOf(body) {
  const found = new Map();
  if (FIELD_OF_CODE.has(body?.code) && typeof body.message === 'string') return new Map([[FIELD_OF_CODE.get(body.code), body.message]]);
  if (Array.isArray(body?.errors)) {
    for (const entry of body.errors) {
      const field = String(entry?.field ?? '').split('.')[0];
      if (FORM_FIELDS.has(field) && !found.has(field)) found.set(field, String(entry.message));
    }
    if (found.size > 0) return found;
  }
  const named = /^([A-Za-z_]+)(?:\.\d+)*: ([\s\S]+)$/.exec(String(body?.message ?? ''));
  if (named && FORM_FIELDS.has(named[1])) found.set(named[1], named[2]);
  return found;
}

async function answerOf(response) {
  const text = await response.text();
  let body;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.ok) return body;
  // The service's envelope and API Gateway's answers carry `message`; OAuth errors `error`.
  const message = body?.message ?? body?.error_description ?? body?.error ?? `${response.status} ${response.statusText}`;
  throw new ApiError(response.status, String(message), fieldMessagesOf(body));
}

async function send(url, init) {
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError(0, 'The service did not answer: check your connection (under npm start: is it still running?).');
  }
  return answerOf(response);
}

/** An operation of the document by its operationId: its path (canonical prefix) and the scope its security requirement names. */
function operationOf(document, operationId) {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      if (operation?.operationId !== operationId) continue;
      const scopes = Object.values(operation.security?.[0] ?? {})[0] ?? [];
      return { path, scope: scopes[0] };
    }
  }
  throw new Error(`The OpenAPI document has no operation ${operationId}.`);
}

/**
 * The operation of `method` at the path ending in `/<last>`, or undefined when the document has
 * none: for routes a service may not have yet, which the page then does not offer.
 */
function optionalOperationAt(document, method, last) {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const operation = item?.[method];
    if (!operation || !path.endsWith(`/${last}`)) continue;
    const scopes = Object.values(operation.security?.[0] ?? {})[0] ?? [];
    return { path, scope: scopes[0] };
  }
  return undefined;
}

/**
 * What each protocol's endpoint must be, from the create request's schema: each branch of its
 * `allOf` ties a protocol (`if`) to the endpoint's form (`then`), with a description and examples.
 */
function endpointHintsOf(document) {
  const hints = {};
  for (const branch of document.components?.schemas?.CreateSubscriptionRequest?.allOf ?? []) {
    const protocol = branch?.if?.properties?.protocol?.const;
    const endpoint = branch?.then?.properties?.endpoint;
    if (typeof protocol === 'string' && endpoint) hints[protocol] = { text: endpoint.description ?? '', example: endpoint.examples?.[0] ?? '' };
  }
  return hints;
}

/** What the page needs to know of the service, from its OpenAPI document; the API is at `apiBaseUrl` ('' = this origin). */
export async function loadServiceDescription(documentUrl = '/openapi.json', apiBaseUrl = '') {
  const document = await send(documentUrl, { headers: { accept: 'application/json' } });
  const schemes = Object.values(document.components?.securitySchemes ?? {});
  return {
    apiBaseUrl,
    tokenUrl: schemes[0]?.flows?.clientCredentials?.tokenUrl,
    eventKinds: document.components?.schemas?.EventKind?.enum ?? [],
    protocols: document.components?.schemas?.Protocol?.enum ?? [],
    /** By protocol: `{text, example}` for the endpoint field. */
    endpointHints: endpointHintsOf(document),
    /** By the page's name for each: `{path, scope}`. */
    operations: {
      create: operationOf(document, 'createSubscriptionRoute'),
      update: operationOf(document, 'updateSubscriptionRoute'),
      activate: operationOf(document, 'activateSubscriptionRoute'),
      list: operationOf(document, 'listSubscriptionsRoute'),
      rename: operationOf(document, 'renameSubscriptionRoute'),
      delete: operationOf(document, 'deleteSubscriptionRoute'),
      test: operationOf(document, 'testSubscriptionRoute'),
      confirm: operationOf(document, 'confirmSubscriptionRoute'),
      deadLetters: operationOf(document, 'listDeadLettersRoute'),
      replay: operationOf(document, 'replayDeadLettersRoute'),
      attempts: operationOf(document, 'listAttemptsRoute'),
      testFilter: operationOf(document, 'testFilterRoute'),
      messages: operationOf(document, 'listMessagesRoute'),
      resend: operationOf(document, 'resendMessageRoute'),
      recover: optionalOperationAt(document, 'post', 'recover'),
      recoveries: optionalOperationAt(document, 'get', 'recoveries'),
    },
  };
}

/** An access token for a client, from the token endpoint (client_credentials). */
export async function requestToken(tokenUrl, clientId, clientSecret) {
  const answer = await send(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  return answer.access_token;
}

/** The claims of a JWT, unverified: only to show who is signed in and what the page offers. */
export function claimsOf(token) {
  try {
    const payload = token.split('.')[1].replaceAll('-', '+').replaceAll('_', '/');
    return JSON.parse(atob(payload));
  } catch {
    return {};
  }
}

/**
 * The scopes a token's claims grant: its `scope` (space-separated, as OAuth 2.0 puts it) or an
 * `scp` list. Undefined when it carries neither: then only the API can tell, and the page offers
 * everything.
 */
export function scopesOf(claims) {
  const granted = claims.scope ?? claims.scp;
  if (typeof granted === 'string') return new Set(granted.split(' ').filter(Boolean));
  if (Array.isArray(granted)) return new Set(granted.map(String));
  return undefined;
}

const UNAUTHORIZED_MESSAGE = 'The service no longer accepts your sign-in (the token expired, or is not one of its issuer\'s): sign out and sign in again.';

/** What a 403 means for the operation that met it, in a sentence the user can act on. */
function forbiddenMessage(operation) {
  return operation.scope
    ? `Not allowed: this needs the scope ${operation.scope}, which the token you signed in with does not carry. Sign in with a client that has it.`
    : 'Not allowed: the token you signed in with does not grant this. Sign in with a client that may.';
}

/**
 * The API's operations with a sign-in's tokens: a pasted access token, or a session
 * (authorization-code.js's tokenSession) whose `renew()` is tried once when the API answers 401.
 */
export function apiClient(description, tokens) {
  const { operations } = description;
  const session = typeof tokens === 'string' ? { accessToken: () => tokens } : tokens;
  const call = async (operation, method, path, body, headers = {}, renewed = false) => {
    try {
      return await send((description.apiBaseUrl ?? '') + path, {
        method,
        headers: {
          authorization: `Bearer ${session.accessToken()}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401 && !renewed && session.renew && (await session.renew())) {
        return call(operation, method, path, body, headers, true);
      }
      // API Gateway's 401 and 403 say only "Unauthorized" and "Forbidden": say what to do.
      if (error instanceof ApiError && error.status === 401) throw new ApiError(401, UNAUTHORIZED_MESSAGE);
      if (error instanceof ApiError && error.status === 403) throw new ApiError(403, forbiddenMessage(operation));
      throw error;
    }
  };
  const at = (name, method, body, path = operations[name].path, headers = {}) => call(operations[name], method, path, body, headers);
  return {
    list: () => at('list', 'GET'),
    create: (subscription) => at('create', 'POST', subscription),
    rename: (configId, name) => at('rename', 'PUT', { config_id: configId, name }),
    replaceEvents: (configId, events) => at('update', 'PUT', { config_id: configId, events }),
    /** Sets the subscription's filter (an object), or removes it (null). */
    setFilter: (configId, filter) => at('update', 'PUT', { config_id: configId, filter }),
    testFilter: (filter, data) => at('testFilter', 'POST', { filter, data }),
    setStatus: (configId, status) => at('activate', 'PUT', { config_id: configId, status }),
    sendTest: (configId) => at('test', 'POST', { config_id: configId }),
    resendConfirmation: (configId) => at('confirm', 'POST', { config_id: configId }),
    remove: (configId) => at('delete', 'DELETE', undefined, operations.delete.path.replace('{configId}', encodeURIComponent(configId))),
    /** One page of at most `limit` of a subscription's dead letters, newest first; `cursor` from the previous page. */
    deadLetters: (configId, limit, cursor) => {
      const query = new URLSearchParams({ config_id: configId, limit: String(limit), ...(cursor ? { cursor } : {}) });
      return at('deadLetters', 'GET', undefined, `${operations.deadLetters.path}?${query}`);
    },
    /** One page of a subscription's delivery attempts, newest first. */
    attempts: (configId, limit, cursor) => {
      const query = new URLSearchParams({ config_id: configId, limit: String(limit), ...(cursor ? { cursor } : {}) });
      return at('attempts', 'GET', undefined, `${operations.attempts.path}?${query}`);
    },
    /** One page of a subscription's messages, newest first; `status` keeps one delivery state (`failed` also matches `dead-lettered`). */
    messages: (configId, limit, { cursor, status } = {}) => {
      const query = new URLSearchParams({ config_id: configId, limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
      return at('messages', 'GET', undefined, `${operations.messages.path}?${query}`);
    },
    /** Publishes one logged message again to its subscription, with its original body and eventId. */
    resend: (configId, eventId) => at('resend', 'POST', { config_id: configId, event_id: eventId }),
    /**
     * Starts a recovery: every matching message sent since `since` published again. `idempotencyKey`
     * is the user's action: the same key twice starts one recovery.
     */
    recover: (configId, { since, status }, idempotencyKey) =>
      at('recover', 'POST', { config_id: configId, since, status }, operations.recover.path, { 'idempotency-key': idempotencyKey }),
    /** The subscription's recoveries, newest first, with their state and counts. */
    recoveries: (configId) => at('recoveries', 'GET', undefined, `${operations.recoveries.path}?${new URLSearchParams({ config_id: configId })}`),
    /** Sends dead letters again: the named ones, or (no `eventIds`) the next 100 of them. */
    replay: (configId, eventIds) => at('replay', 'POST', { config_id: configId, ...(eventIds ? { eventIds } : {}) }),
  };
}
