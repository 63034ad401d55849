import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, GuardedFetchError, isPublicAddress } from './guarded-fetch.ts';
import type { GuardedFetchErrorCode, GuardedFetchOptions } from './guarded-fetch.ts';

type Lookup = NonNullable<GuardedFetchOptions['lookup']>;

/** A resolver that answers every name with `addresses` and counts how often it was asked. */
function fakeLookup(addresses: LookupAddress[]): { lookup: Lookup; calls: () => number } {
  let calls = 0;
  const lookup = (
    _hostname: string,
    _options: unknown,
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ): void => {
    calls += 1;
    callback(null, addresses);
  };
  // dns.lookup is an overloaded signature; the guarded fetch only ever calls the `all: true` form.
  return { lookup: lookup as unknown as Lookup, calls: () => calls };
}

async function errorCode(promise: Promise<unknown>): Promise<GuardedFetchErrorCode> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GuardedFetchError);
  return (error as GuardedFetchError).code;
}

let dir: string;
let cert: string;
let server: Server;
let port: number;
let connections = 0;
const hits = new Map<string, number>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kgate-guarded-fetch-'));
  execFileSync(
    'openssl',
    [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,DNS:kgate.test,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    switch (path) {
      case '/doc':
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-multi': ['a', 'b'],
          'x-accept': req.headers.accept ?? '',
        });
        res.end('{"ok":true}');
        return;
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('nope');
        return;
      case '/redirect':
        res.writeHead(302, { location: '/secret' });
        res.end();
        return;
      case '/declared-large':
        // Headers only: a client that waited for the body would hit its timeout instead of too_large.
        res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
        res.flushHeaders();
        return;
      case '/streamed-large':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 64; i += 1) res.write(Buffer.alloc(1024, 120));
        res.end();
        return;
      case '/gzip':
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end('not really gzip');
        return;
      case '/stall':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        return;
      default:
        res.writeHead(200);
        res.end('secret');
    }
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('guarded fetch against a local server', () => {
  it('refuses loopback by default without connecting', async () => {
    const before = connections;
    const fetch = createGuardedFetch({ ca: cert });
    expect(await errorCode(fetch(`https://localhost:${port}/doc`))).toBe('blocked_address');
    expect(await errorCode(fetch(`https://127.0.0.1:${port}/doc`))).toBe('blocked_address');
    expect(connections).toBe(before);
    expect(hits.get('/doc') ?? 0).toBe(0);
  });

  it('fetches with allowPrivateAddresses and returns status, headers and body', async () => {
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true });
    for (const host of ['localhost', '127.0.0.1']) {
      const res = await fetch(`https://${host}:${port}/doc`, { accept: 'application/cimd+json' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-multi']).toBe('a, b');
      expect(res.headers['x-accept']).toBe('application/cimd+json');
      expect(res.body.toString('utf8')).toBe('{"ok":true}');
    }
    const missing = await fetch(`https://127.0.0.1:${port}/missing`);
    expect(missing.status).toBe(404);
    expect(missing.body.toString('utf8')).toBe('nope');
  });

  it('connects to the address its own lookup checked, resolving once', async () => {
    const resolver = fakeLookup([{ address: '127.0.0.1', family: 4 }]);
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true, lookup: resolver.lookup });
    const res = await fetch(`https://kgate.test:${port}/doc`);
    expect(res.status).toBe(200);
    expect(resolver.calls()).toBe(1);
  });

  it('refuses a hostname that resolves to a private address', async () => {
    const before = connections;
    for (const addresses of [
      [{ address: '10.1.2.3', family: 4 }],
      [{ address: '127.0.0.1', family: 4 }],
      [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }],
      [{ address: '2606:4700::1111', family: 6 }, { address: '::ffff:7f00:1', family: 6 }],
    ]) {
      const fetch = createGuardedFetch({ ca: cert, lookup: fakeLookup(addresses).lookup });
      expect(await errorCode(fetch(`https://metadata.example:${port}/doc`))).toBe('blocked_address');
    }
    expect(connections).toBe(before);
  });

  it('refuses private IP-literal hosts without resolving or connecting', async () => {
    const resolver = fakeLookup([{ address: '8.8.8.8', family: 4 }]);
    const fetch = createGuardedFetch({ ca: cert, lookup: resolver.lookup, timeoutMs: 1000 });
    const hosts = [
      '10.0.0.1',
      '169.254.169.254',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '0.0.0.0',
      '[fd00::1]',
      '2130706433', // decimal spelling of 127.0.0.1
      '0x7f.1',
    ];
    for (const host of hosts) {
      expect(await errorCode(fetch(`https://${host}/client.json`)), host).toBe('blocked_address');
    }
    expect(resolver.calls()).toBe(0);
  });

  it('rejects URLs that are not plain https', async () => {
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true });
    for (const url of [
      `http://127.0.0.1:${port}/doc`,
      `https://user:pass@127.0.0.1:${port}/doc`,
      `https://user@127.0.0.1:${port}/doc`,
      'ftp://example.com/doc',
      'not a url',
      `https://example.com/${'a'.repeat(3000)}`,
    ]) {
      expect(await errorCode(fetch(url)), url).toBe('invalid_url');
    }
  });

  it('refuses redirects without following them', async () => {
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true });
    expect(await errorCode(fetch(`https://127.0.0.1:${port}/redirect`))).toBe('redirect_refused');
    expect(hits.get('/redirect')).toBe(1);
    expect(hits.get('/secret') ?? 0).toBe(0);
  });

  it('refuses bodies over maxBytes, declared or streamed', async () => {
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true, maxBytes: 4096, timeoutMs: 5000 });
    const started = Date.now();
    expect(await errorCode(fetch(`https://127.0.0.1:${port}/declared-large`))).toBe('too_large');
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await errorCode(fetch(`https://127.0.0.1:${port}/streamed-large`))).toBe('too_large');
  });

  it('refuses encoded bodies', async () => {
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true });
    expect(await errorCode(fetch(`https://127.0.0.1:${port}/gzip`))).toBe('network');
  });

  it('times out a server that stalls after the headers', async () => {
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true, timeoutMs: 300 });
    const started = Date.now();
    expect(await errorCode(fetch(`https://127.0.0.1:${port}/stall`))).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out a server that accepts TCP but never answers the TLS handshake', async () => {
    // Reading (and discarding) lets the server see the client's close; a paused socket would keep close() waiting.
    const silent = createTcpServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true, timeoutMs: 300 });
      const silentPort = (silent.address() as AddressInfo).port;
      expect(await errorCode(fetch(`https://127.0.0.1:${silentPort}/doc`))).toBe('timeout');
    } finally {
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('reports refused connections and untrusted certificates as network errors', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const fetch = createGuardedFetch({ ca: cert, allowPrivateAddresses: true });
    expect(await errorCode(fetch(`https://127.0.0.1:${closedPort}/doc`))).toBe('network');
    const untrusting = createGuardedFetch({ allowPrivateAddresses: true });
    expect(await errorCode(untrusting(`https://127.0.0.1:${port}/doc`))).toBe('network');
  });
});

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'ff02::1',
    '2001:db8::1',
    '64:ff9b::808:808',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a00:1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '::8.8.8.8',
    '100::1',
    '2002:7f00:1::1',
    '2001::1',
    'localhost',
    '',
    '999.1.1.1',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('keeps the edges of ranges public', () => {
    expect(isPublicAddress('100.63.255.255')).toBe(true);
    expect(isPublicAddress('100.128.0.0')).toBe(true);
    expect(isPublicAddress('172.15.255.255')).toBe(true);
    expect(isPublicAddress('172.32.0.0')).toBe(true);
    expect(isPublicAddress('198.17.255.255')).toBe(true);
    expect(isPublicAddress('198.20.0.0')).toBe(true);
    expect(isPublicAddress('223.255.255.255')).toBe(true);
  });
});
