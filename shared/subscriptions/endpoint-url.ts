/**
 * What an http/https endpoint may be beyond its form (the contract's schema): a host that can be a
 * public receiver, and no credentials over plain http. Checked by create and confirm before
 * anything is made, as endpoint-account.ts checks sqs and lambda endpoints.
 *
 * Only what the URL itself says is checked: an IP literal (in any form the URL parser reads, such
 * as `2130706433`, `0x7f.1` or `[::ffff:127.0.0.1]`, all 127.0.0.1) and the names `localhost` and
 * `*.localhost` (RFC 6761). A public name that resolves to a private address is not seen here;
 * SNS does not deliver to private addresses (docs/security.md, "Endpoints that cannot be public").
 */
import { BlockList, isIP } from 'node:net';
import { CredentialsOverHttpError, EndpointNotPublicError } from './errors';
import type { Subscription } from './model';

/** The address ranges no public receiver has, by what they are; checked in this order. */
const NOT_PUBLIC: readonly (readonly [kind: string, ranges: readonly string[]])[] = [
  ['a loopback address', ['127.0.0.0/8', '::1/128']],
  ['a link-local address', ['169.254.0.0/16', 'fe80::/10']],
  ['a private address', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
  ['an unspecified address', ['0.0.0.0/8', '::/128']],
  // IANA's special-purpose registries: shared (carrier-grade NAT), protocol assignments,
  // documentation, 6to4 relays, benchmarking, multicast and the reserved rest.
  [
    'a reserved address',
    [
      '100.64.0.0/10',
      '192.0.0.0/24',
      '192.0.2.0/24',
      '192.88.99.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '224.0.0.0/4',
      '240.0.0.0/4',
      '2001::/23',
      '2001:db8::/32',
      '2002::/16',
      '3fff::/20',
      'ff00::/8',
    ],
  ],
];
const LOOPBACK_KIND = NOT_PUBLIC[0]![0];
const LINK_LOCAL_KIND = NOT_PUBLIC[1]![0];

function blockListOf(ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/') as [string, string];
    list.addSubnet(address, Number(prefix), address.includes(':') ? 'ipv6' : 'ipv4');
  }
  return list;
}

// Built at first use, so a function that never checks an endpoint never builds them.
let lists: (readonly [kind: string, list: BlockList])[] | undefined;
// Outside 2000::/3 no IPv6 address is global unicast (an IPv4-mapped one is read by the IPv4
// ranges above: BlockList matches `::ffff:a.b.c.d` against them).
let globalUnicast: BlockList | undefined;

/** What the host is when it cannot be a public receiver; undefined for a public address or any other name. */
export function nonPublicKindOf(hostname: string): string | undefined {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return LOOPBACK_KIND;
  const version = isIP(host);
  if (version === 0) return undefined;
  const type = version === 4 ? 'ipv4' : 'ipv6';
  lists ??= NOT_PUBLIC.map(([kind, ranges]) => [kind, blockListOf(ranges)] as const);
  for (const [kind, list] of lists) if (list.check(host, type)) return kind;
  if (type === 'ipv6') {
    globalUnicast ??= blockListOf(['2000::/3']);
    if (!globalUnicast.check(host, 'ipv6')) return 'a reserved address';
  }
  return undefined;
}

export interface EndpointUrlRules {
  /** Loopback hosts accepted (ALLOW_LOOPBACK_ENDPOINTS): for receivers on the machine of `npm start`. */
  allowLoopbackEndpoints: boolean;
}

/**
 * Refuses an http/https endpoint whose host cannot be public (EndpointNotPublicError; a loopback
 * one only unless the rules allow it, a link-local one always), and userinfo in a plain http://
 * URL (CredentialsOverHttpError). Other protocols pass.
 */
export function checkEndpointUrl({ protocol, endpoint }: Pick<Subscription, 'protocol' | 'endpoint'>, rules: EndpointUrlRules): void {
  if (protocol !== 'http' && protocol !== 'https') return;
  // The authority is what comes before the first `/`, `?`, `#` (or `\`, which URL parsers read as `/`).
  if (protocol === 'http' && /^http:\/\/[^/?#\\]*@/i.test(endpoint)) throw new CredentialsOverHttpError();
  let hostname: string;
  try {
    hostname = new URL(endpoint).hostname;
  } catch {
    // Not a URL Node can read: nothing could deliver to it, and SNS refuses it (ENDPOINT_REFUSED).
    return;
  }
  const kind = nonPublicKindOf(hostname);
  if (kind === undefined || (kind === LOOPBACK_KIND && rules.allowLoopbackEndpoints)) return;
  throw new EndpointNotPublicError(hostname, kind === LINK_LOCAL_KIND ? `${kind} (such as the instance metadata service's)` : kind);
}
