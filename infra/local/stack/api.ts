/**
 * The API on one port: the gateway invoking the operations' handlers behind the JWT authorizer,
 * the OAuth token endpoint whose tokens it accepts, and the admin site (the OpenAPI document, the
 * admin page, the docs), without an authorizer.
 */
import { portalClaim as portalClaimSetting } from '../../../shared/settings';
import { ADMIN_PATH, adminSiteRoutes, LOCAL_PAGE_CLIENT_ID } from '../admin/admin-site';
import type { OAuthClient } from '../auth/clients';
import { keySetOf, type SigningKey } from '../auth/signing-key';
import { createOAuthServer } from '../auth/token-endpoint';
import { freePort } from '../free-port';
import { type Gateway, startGateway } from '../gateway/gateway';
import { createJwtAuthorizer } from '../gateway/jwt-authorizer';
import type { OperationHandlers } from '../operation-handlers';
import { HOST, PortInUseError } from './ports';

/** How many free ports the API tries when each found free is taken before it is bound. */
const FREE_PORT_ATTEMPTS = 3;

export interface ApiOptions {
  /** 0 = a free port. */
  readonly port: number;
  readonly audience: string;
  readonly signingKey: SigningKey;
  readonly clients: readonly OAuthClient[];
  readonly handlers: OperationHandlers;
  readonly region: string;
  readonly log: (line: string) => void;
  /** Origins that may embed the admin page in a frame; default none. */
  readonly adminFrameAncestors?: readonly string[];
  /** Access tokens' lifetime; default the token endpoint's (an hour). */
  readonly tokenLifetimeSeconds?: number;
}

export interface Api {
  readonly gateway: Gateway;
  readonly oauth: ReturnType<typeof createOAuthServer>;
  /** The `iss` of its tokens: its own URL. */
  readonly issuer: string;
}

/** Starts the API; the handlers' environment must be set (the request schemas it renders read it). */
export async function startApi(options: ApiOptions): Promise<Api> {
  const { audience, signingKey, clients, handlers, region, log } = options;
  // Imported once the handlers' environment is set: the request schemas it renders read it.
  const { buildOpenApiDocument } = await import('../../../shared/contract/openapi-document');
  const { config } = await import('../../../shared/environment');
  // The API's port is fixed before the gateway starts: the issuer URL, which tokens carry,
  // holds it. A free one (port 0) is chosen only now, just before it is bound, and chosen
  // again should another process take it in between.
  for (let attempt = 1; ; attempt++) {
    const apiPort = options.port === 0 ? await freePort() : options.port;
    const issuer = `http://${HOST}:${apiPort}`;
    const portalClaim = process.env.PORTAL_CLAIM?.trim() || portalClaimSetting.default!;
    const oauth = createOAuthServer({
      issuer,
      audience,
      portalClaim,
      signingKey,
      clients,
      tokenLifetimeSeconds: options.tokenLifetimeSeconds,
      // The admin page served below signs people in with the authorization code grant.
      publicClients: [{ clientId: LOCAL_PAGE_CLIENT_ID, redirectUris: [issuer + ADMIN_PATH] }],
    });
    const openApiDocument = buildOpenApiDocument({ eventKinds: config.eventKinds, tokenUrl: oauth.tokenUrl, serverUrl: issuer });
    const pageSettings = {
      apiBaseUrl: '',
      openApiDocument: '/openapi.json',
      issuer,
      authorizationEndpoint: oauth.authorizationUrl,
      tokenEndpoint: oauth.tokenUrl,
      clientId: LOCAL_PAGE_CLIENT_ID,
      redirectUri: issuer + ADMIN_PATH,
      scopes: 'webhooks.config:read webhooks.config:write',
      portalClaim,
      developerSignIn: true,
    };
    try {
      const gateway = await startGateway({
        port: apiPort,
        host: HOST,
        handlers,
        authorize: createJwtAuthorizer({ issuer, audience: [audience], keySet: keySetOf(signingKey) }),
        region,
        publicRoutes: { ...oauth.routes, ...adminSiteRoutes(openApiDocument, pageSettings, options.adminFrameAncestors) },
        log: (line) => log(`[gateway] ${line}`),
      });
      return { gateway, oauth, issuer };
    } catch (error) {
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (options.port !== 0 || !taken || attempt >= FREE_PORT_ATTEMPTS) throw taken ? new PortInUseError(apiPort, 'api') : error;
    }
  }
}
