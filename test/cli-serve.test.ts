/**
 * `kgate serve` on an empty embedded data directory, as a real child process: the first-start banner, the health
 * probes, the printed token at work, request logs that never hold the token, the data directory held until
 * SIGTERM, data that survives the server, and a restart that stays quiet. One server serves every test in turn.
 * PGlite only: the server bootstraps itself only for the embedded quick start.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapOutput } from '../src/cli/bootstrap-command.ts';
import { createServices } from '../src/app/services.ts';
import { LOCK_FILE_NAME } from '../src/db/data-dir-lock.ts';
import { cleanupCli, installationAt, logEntries, runKgate, singleJson, startServe, tempDir, type ServeProcess } from './support/cli.ts';
import { exampleNotePaths, notePaths } from './support/cli-vaults.ts';
import { TEST_ENGINE } from './support/database.ts';
import { pageBrowser, signInThroughForm } from './support/browser.ts';

afterAll(cleanupCli);
const SERVE_TEST_MS = 120_000;


describe.runIf(TEST_ENGINE === 'pglite')('kgate serve on an empty data directory', () => {
  let env: Record<string, string>;
  let dir: string;
  let serve: ServeProcess;
  let stdout: string;
  let token: string;
  let bannerEnd: number;
  let MCP_URL: string;

  beforeAll(async () => {
    // No KGATE_BASE_URL and PORT=0: the printed URLs must be the address the server really bound.
    dir = await tempDir('serve');
    env = { KGATE_DATA_DIR: dir };
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

  it('holds its data directory: a second gateway on it is refused with exit 75, the directory and holder named', async () => {
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(true);
    // Other commands go through the running gateway instead (test/cli-beside-gateway.test.ts).
    const refused = await runKgate(['serve'], env);
    expect(refused.code).toBe(75);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`The data directory ${resolve(dir)} is in use`);
    expect(refused.stderr).toMatch(new RegExp(`in use by (kgate )?process ${serve.pid}\\b`));
  });

  it('stops on SIGTERM with exit 0, releases its data directory, and the data survives', async () => {
    expect(await serve.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);

    const output = singleJson<BootstrapOutput>(await runKgate(['admin', 'bootstrap', '--json'], env));
    expect(output).toMatchObject({ created: { account: false, vault: false }, seeded: null });
    const exampleNotes = await exampleNotePaths();
    await installationAt(dir).withDatabase(async (db) => {
      expect((await createServices(db).tokens.authenticate(token)).accountId).toBe(output.accountId);
      expect(await notePaths(db, output.mappingId)).toHaveLength(exampleNotes.length);
    });
  }, SERVE_TEST_MS);

  it('restarted on the same directory, prints no banner and no token', async () => {
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
