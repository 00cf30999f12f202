// What the page is told where it is served: a small JSON file beside it (settings.json), which
// `npm start` serves and the AWS stack writes at deploy, so one build of the page fits any
// deployment. Fields: apiBaseUrl (the API's origin; '' for the page's own), openApiDocument,
// issuer, authorizationEndpoint, tokenEndpoint, clientId, redirectUri, scopes, portalClaim, and
// developerSignIn (true only under npm start: the client-secret and pasted-token forms).

const REQUIRED = ['authorizationEndpoint', 'tokenEndpoint', 'clientId', 'scopes'];

export async function loadPageSettings(url = 'settings.json') {
  let response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
  } catch {
    throw new Error(`the page's settings (${url}) could not be read`);
  }
  if (!response.ok) throw new Error(`the page's settings (${url}) answered ${response.status}`);
  const settings = await response.json();
  const missing = REQUIRED.filter((name) => typeof settings?.[name] !== 'string' || settings[name] === '');
  if (missing.length > 0) throw new Error(`the page's settings (${url}) lack ${missing.join(', ')}`);
  return {
    apiBaseUrl: String(settings.apiBaseUrl ?? '').replace(/\/+$/, ''),
    openApiDocument: settings.openApiDocument ?? 'openapi.json',
    issuer: settings.issuer,
    authorizationEndpoint: settings.authorizationEndpoint,
    tokenEndpoint: settings.tokenEndpoint,
    clientId: settings.clientId,
    // The page's own address without query or fragment, unless the settings name it.
    redirectUri: settings.redirectUri ?? `${location.origin}${location.pathname}`,
    scopes: settings.scopes,
    portalClaim: settings.portalClaim ?? 'portal_id',
    developerSignIn: settings.developerSignIn === true,
  };
}
