import { isIP } from 'node:net';
import type { Context } from 'hono';
import type { HttpEnv } from './context.ts';

/** The key of a request that came without a socket (Hono's `app.request` in tests): all such share one. */
export const UNKNOWN_CLIENT_ADDRESS = 'unknown';

/** The eight 16-bit groups of an address that `isIP` accepted as IPv6. */
function ipv6Groups(address: string): number[] {
  let text = address;
  // An embedded IPv4 address (::ffff:192.0.2.1) is the last two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...new Array<string>(fill).fill('0'), ...right].map((group) => Number.parseInt(group, 16));
}

/**
 * The throttling key of a client address: an IPv4 address as is; an IPv4-mapped IPv6 address as its IPv4 address;
 * any other IPv6 address as its /64 network, since one subscriber usually holds a whole /64 and could otherwise
 * use a new address for every attempt. Anything else (no address) is `unknown`.
 */
export function clientAddressKey(address: string | undefined): string {
  const raw = (address ?? '').trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const kind = isIP(raw);
  if (kind === 4) return raw;
  if (kind !== 6) return UNKNOWN_CLIENT_ADDRESS;
  const groups = ipv6Groups(raw.toLowerCase());
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/**
 * The client's address, as a throttling key (clientAddressKey). It is the socket's remote address, unless the
 * operator said that `trustedProxies` proxies stand in front of the gateway (KGATE_TRUST_PROXY): then each of them
 * appended the address it saw to `X-Forwarded-For`, and the client is the entry that the outermost trusted proxy
 * appended, counted from the right. Entries further left were written by the client and prove nothing. A request
 * whose header has fewer entries than that did not pass all the proxies, and its leftmost entry is taken.
 */
export function clientAddressOf(c: Context<HttpEnv>, trustedProxies: number): string {
  const socketAddress = c.env?.incoming?.socket?.remoteAddress;
  if (trustedProxies <= 0) return clientAddressKey(socketAddress);
  const header = c.req.header('x-forwarded-for');
  const entries = (header ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return clientAddressKey(socketAddress);
  return clientAddressKey(entries[Math.max(0, entries.length - trustedProxies)]);
}
