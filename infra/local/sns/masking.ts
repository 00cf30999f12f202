/**
 * What SNS shows of an endpoint's basic-auth password: nothing. Its listings (ListSubscriptions,
 * ListSubscriptionsByTopic) show `https://user:****@host/...`, and an HTTP/S endpoint in full is
 * "only retrievable from the Amazon SNS GetSubscriptionAttributes API action, for principals you
 * have granted API access to" (SNS Developer Guide, "Fanout Amazon SNS notifications to HTTPS
 * endpoints"). The emulator's own log lines mask it the same way.
 */

/** `scheme://user:password@`: the userinfo ends at the last `@` before the first `/`, `?`, `#` or space. */
const USERINFO_WITH_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:\\]*):[^\s/?#]*@/gi;

/** The text with every URL's password replaced by `****`. */
export function maskPasswords(text: string): string {
  return text.includes('://') ? text.replace(USERINFO_WITH_PASSWORD, '$1:****@') : text;
}
