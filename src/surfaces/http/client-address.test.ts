import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { clientAddressKey, clientAddressOf } from './client-address.ts';
import type { HttpEnv } from './context.ts';

describe('client addresses for throttles', () => {
  it('keys IPv4 as is, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64, and anything else as unknown', () => {
    expect(clientAddressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(clientAddressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientAddressKey('::ffff:c000:207')).toBe('192.0.2.7');
    expect(clientAddressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:DB8:1:2::99')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('[2001:db8::1]')).toBe('2001:db8:0:0::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    for (const value of [undefined, '', 'localhost', '192.0.2.256', '1.2.3.4:80', 'a::b::c']) expect(clientAddressKey(value)).toBe('unknown');
  });

  it('believes X-Forwarded-For only as far as the configured proxies go, counted from the right', async () => {
    const seen = async (trustedProxies: number, header?: string) => {
      const app = new Hono<HttpEnv>().get('/', (c) => c.text(clientAddressOf(c, trustedProxies)));
      const socket = { remoteAddress: '::ffff:10.0.0.9' };
      const headers: Record<string, string> = header === undefined ? {} : { 'x-forwarded-for': header };
      const response = await app.request('/', { headers }, { incoming: { socket } as never });
      return response.text();
    };
    expect(await seen(0, '198.51.100.1')).toBe('10.0.0.9');
    expect(await seen(1)).toBe('10.0.0.9');
    expect(await seen(1, '198.51.100.1')).toBe('198.51.100.1');
    // The client wrote the left entry itself; our one proxy appended the right one.
    expect(await seen(1, '203.0.113.66, 198.51.100.1')).toBe('198.51.100.1');
    expect(await seen(2, '203.0.113.66, 198.51.100.1, 10.0.0.2')).toBe('198.51.100.1');
    expect(await seen(3, '198.51.100.1')).toBe('198.51.100.1');
    expect(await seen(1, 'garbage')).toBe('unknown');
  });
});
