// The page's one door to the service: the OpenAPI document (where the routes, the token
// endpoint, the catalog, the protocols and each one's endpoint form are), the token endpoint and the API. Every failure
// becomes an ApiError carrying the service's own message and, where it names them, the fields.

/** Fields of the forms a message can be about; `events.2` is about `events`. */
const FORM_FIELDS = new Set(['name', 'endpoint', 'protocol', 'events', 'config_id', 'configId', 'status']);

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

/**
 * The fields an error answer concerns: its `errors: [{field, message}]` when it has them;
 * otherwise a message of the form "field: what is wrong", as the service's validation gives it.
 */
export function fieldMessagesOf(body) {
  const found = new Map();
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
    throw new ApiError(0, 'The service did not answer: is npm start still running?');
  }
  return answerOf(response);
}

/** The path of an operation (by its operationId) in the document, canonical prefix. */
function pathOf(document, operationId) {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(item)) if (operation?.operationId === operationId) return path;
  }
  throw new Error(`The OpenAPI document has no operation ${operationId}.`);
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

/** What the page needs to know of the service, from its OpenAPI document. */
export async function loadServiceDescription(documentUrl = '/openapi.json') {
  const document = await send(documentUrl, { headers: { accept: 'application/json' } });
  const schemes = Object.values(document.components?.securitySchemes ?? {});
  return {
    tokenUrl: schemes[0]?.flows?.clientCredentials?.tokenUrl,
    eventKinds: document.components?.schemas?.EventKind?.enum ?? [],
    protocols: document.components?.schemas?.Protocol?.enum ?? [],
    /** By protocol: `{text, example}` for the endpoint field. */
    endpointHints: endpointHintsOf(document),
    paths: {
      create: pathOf(document, 'createSubscriptionRoute'),
      update: pathOf(document, 'updateSubscriptionRoute'),
      activate: pathOf(document, 'activateSubscriptionRoute'),
      list: pathOf(document, 'listSubscriptionsRoute'),
      rename: pathOf(document, 'renameSubscriptionRoute'),
      delete: pathOf(document, 'deleteSubscriptionRoute'),
      test: pathOf(document, 'testSubscriptionRoute'),
      confirm: pathOf(document, 'confirmSubscriptionRoute'),
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

/** The claims of a JWT, unverified: only to show who is signed in. */
export function claimsOf(token) {
  try {
    const payload = token.split('.')[1].replaceAll('-', '+').replaceAll('_', '/');
    return JSON.parse(atob(payload));
  } catch {
    return {};
  }
}

/** The API's operations with a token. */
export function apiClient(description, token) {
  const { paths } = description;
  const call = (method, path, body) =>
    send(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    list: () => call('GET', paths.list),
    create: (subscription) => call('POST', paths.create, subscription),
    rename: (configId, name) => call('PUT', paths.rename, { config_id: configId, name }),
    replaceEvents: (configId, events) => call('PUT', paths.update, { config_id: configId, events }),
    setStatus: (configId, status) => call('PUT', paths.activate, { config_id: configId, status }),
    sendTest: (configId) => call('POST', paths.test, { config_id: configId }),
    resendConfirmation: (configId) => call('POST', paths.confirm, { config_id: configId }),
    remove: (configId) => call('DELETE', paths.delete.replace('{configId}', encodeURIComponent(configId))),
  };
}
