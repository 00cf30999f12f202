/**
 * Where the platform's authorization server takes token requests, under its base URL: the
 * OAuth 2.0 flows the OpenAPI document names, and the path the local token endpoint serves.
 */
export const TOKEN_PATH = '/v6/authentication/oauth2/token';
