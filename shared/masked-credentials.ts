/**
 * A URL's basic-auth password, masked as SNS masks it in its listings (`https://user:****@host/...`):
 * the user stays visible, the password never. Pure text work, with no dependency, so that the
 * logger (every line), the domain (what is stored and answered) and the emulator's twin of it
 * agree on one rule.
 */

/** What stands for a password wherever an endpoint is shown or stored. */
export const MASKED_PASSWORD = '****';

/**
 * `scheme://user:password@` anywhere in a text. The authority ends at the first `/`, `?`, `#`
 * or whitespace, and the userinfo at the last `@` before that (WHATWG URL, as Node and SNS read
 * it), so a password holding `@` or `:` is masked whole.
 */
const USERINFO_WITH_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:\\]*):[^\s/?#]*@/gi;

/** The text with every URL's password replaced by `****`. */
export function maskCredentials(text: string): string {
  // Most texts hold no `://` at all: the common case costs one scan.
  return text.includes('://') ? text.replace(USERINFO_WITH_PASSWORD, `$1:${MASKED_PASSWORD}@`) : text;
}

const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:\\]*:[^\s/?#]*@/i;

/** Whether the URL carries a password (masked or not): `scheme://user:password@...`. */
export function hasPassword(url: string): boolean {
  return URL_WITH_PASSWORD.test(url);
}

/** Whether the URL's password is masked (`****`): the real one is kept elsewhere (SNS), or nowhere. */
export function hasMaskedPassword(url: string): boolean {
  return hasPassword(url) && maskCredentials(url) === url;
}
