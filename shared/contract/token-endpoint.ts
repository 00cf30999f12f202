/**
 * Where the platform's authorization server takes token requests, under its base URL: the
 * OAuth 2.0 flows the OpenAPI document names, and the paths the local stand-in serves.
 */
export const TOKEN_PATH = '/v6/authentication/oauth2/token';
/** Where a person signs in and the authorization code grant starts (RFC 6749 §3.1). */
export const AUTHORIZATION_PATH = '/v6/authentication/oauth2/auth';
