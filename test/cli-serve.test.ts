/**
 * `kgate serve` on an empty embedded data directory, as a real child process: the first-start banner, the health
 * probes, the printed token at work, request logs that never hold the token, and a restart that stays quiet.
 * PGlite only: the server bootstraps itself only for the embedded quick start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupCli, logEntries, startServe, tempDir, type ServeProcess } from './support/cli.ts';
import { TEST_ENGINE } from './support/database.ts';
import { pageBrowser, signInThroughForm } from './support/browser.ts';

afterAll(cleanupCli);
const SERVE_TEST_MS = 120_000;


describe.runIf(TEST_ENGINE === 'pglite')('kgate serve on an empty data directory', () => {
  let env: Record<string, string>;
  let serve: ServeProcess;
  let stdout: string;
  let token: string;
  let bannerEnd: number;
  let MCP_URL: string;

  beforeAll(async () => {
    // No KGATE_BASE_URL and PORT=0: the printed URLs must be the address the server really bound.
    env = { KGATE_DATA_DIR: await tempDir('serve') };
    serve = await startServe(env);
    MCP_URL = `${serve.url.replace('//127.0.0.1:', '//localhost:')}/api/mcp`;
    expect(MCP_URL).not.toContain(':0/');
    // The banner ends with the client configuration: a JSON object whose closing brace is alone on its line.
    stdout = await serve.waitForStdout('the first-start banner', (out) => /MCP client configuration[^]*\n\}\n/.test(out));
  }, SERVE_TEST_MS);

  it('prints the first-start banner once: the token, the MCP URL and a client configuration without the token', () => {
    expect(stdout.match(/First start/g)).toHaveLength(1);
    const exported = /^ {2}export SERVICE_MCP_TOKEN=(kgp_[0-9A-Za-z]{36})$/m.exec(stdout);
    expect(exported).not.toBeNull();
    token = exported![1]!;
    expect(stdout).toContain(`MCP endpoint:  ${MCP_URL}\n`);

    const configStart = stdout.indexOf('\n{\n', stdout.indexOf('MCP client configuration')) + 1;
    bannerEnd = stdout.indexOf('\n}\n', configStart) + 3;
    const config = JSON.parse(stdout.slice(configStart, bannerEnd)) as {
      mcpServers: { kgate: { type: string; url: string; headers: Record<string, string> } };
    };
    expect(config.mcpServers.kgate).toEqual({
      type: 'http',
      url: MCP_URL,
      headers: { Authorization: 'Bearer ${SERVICE_MCP_TOKEN}' },
    });
  });

  it('prints a sign-in password once, and it signs the owner in', async () => {
    const line = /^Sign in at (\S+)\/signin as owner@kgate\.local with the password (\S+)$/m.exec(stdout);
    expect(line).not.toBeNull();
    expect(stdout.match(/with the password/g)).toHaveLength(1);
    const browser = pageBrowser(line![1]!);
    const response = await signInThroughForm(browser, 'owner@kgate.local', line![2]!);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/account');
    expect(browser.cookies.has('kgate_session')).toBe(true);
  });

  it('answers /healthz and /readyz with migrations at head', async () => {
    const health = await fetch(`${serve.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${serve.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'ok', migrations: { atHead: true, pending: [] } });
  });

  it('GET /api/account with the printed token returns the account', async () => {
    const response = await fetch(`${serve.url}/api/account`, { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'active',
      plan: 'developer',
      credential: { kind: 'personal_access_token' },
    });
  });

  it('logs each request as a JSON line with its reqId, and never the token', async () => {
    const requests: { path: string; headers?: Record<string, string> }[] = [
      { path: '/api/account', headers: { Authorization: `Bearer ${token}` } },
      { path: `/api/account?token=${token}` },
      { path: `/api/account?token=${token}`, headers: { Authorization: `Bearer ${token}` } },
      { path: `/healthz?token=${token}` },
      { path: `/no-such-route?token=${token}` },
    ];
    const ids: string[] = [];
    for (const request of requests) {
      const response = await fetch(`${serve.url}${request.path}`, { headers: request.headers ?? {} });
      await response.arrayBuffer();
      ids.push(response.headers.get('x-request-id')!);
    }
    expect(new Set(ids).size).toBe(requests.length);
    const logged = await serve.waitForStdout('the request log lines', (out) =>
      ids.every((id) => logEntries(out).some((entry) => entry.reqId === id)),
    );
    for (const id of ids) {
      const entry = logEntries(logged).find((e) => e.reqId === id)!;
      expect(entry).toMatchObject({ msg: 'request', method: 'GET', status: expect.any(Number) });
      expect(String(entry.path)).not.toContain('?');
    }
    expect(logEntries(logged).filter((e) => e.msg === 'request').every((e) => typeof e.reqId === 'string')).toBe(true);

    // The banner holds the token once; nothing after it (or before it) does.
    expect(logged.split(token)).toHaveLength(2);
    expect(logged.indexOf(token)).toBeLessThan(bannerEnd);
    expect(serve.stderr()).not.toContain(token);
  });

  it('stops on SIGTERM and, restarted on the same directory, prints no banner and no token', async () => {
    expect(await serve.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const again = await startServe(env);
    try {
      const response = await fetch(`${again.url}/api/account`, { headers: { Authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const id = response.headers.get('x-request-id')!;
      await again.waitForStdout('the request log line', (out) => logEntries(out).some((entry) => entry.reqId === id));
    } finally {
      expect(await again.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    const out = again.stdout();
    expect(out).not.toContain('First start');
    expect(out).not.toContain('SERVICE_MCP_TOKEN');
    expect(out).not.toMatch(/kgp_[0-9A-Za-z]{36}/);
    expect(again.stderr()).toBe('');
  }, SERVE_TEST_MS);
});
