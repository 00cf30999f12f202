/**
 * The admin page's Content-Security-Policy, one definition for both places that serve the page:
 * CloudFront's response-headers policy (infra/aws/admin-page-hosting.ts) and `npm start`'s admin
 * site. Scripts, styles and images come from the page's own origin only (plain ES modules, no
 * inline code); it may connect to itself (settings.json, openapi.json), the API's origin and the
 * issuer's (token endpoint); it may be framed only by the origins listed (none by default), so a
 * page of another origin cannot embed it to trick a click (CSP Level 2 frame-ancestors).
 */
export interface AdminPagePolicyOptions {
  /** Origins the page calls besides its own: the API's and the issuer's. */
  readonly connectTo: readonly string[];
  /** Origins that may embed the page in a frame; none: nobody may. */
  readonly frameAncestors: readonly string[];
}

/** `https://host[:port]` of a URL; the CSP source that allows exactly that origin. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

export function adminPageContentSecurityPolicy(options: AdminPagePolicyOptions): string {
  const connect = [...new Set(["'self'", ...options.connectTo])].join(' ');
  const ancestors = options.frameAncestors.length > 0 ? [...new Set(options.frameAncestors)].join(' ') : "'none'";
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}
