import { existsSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, cleanupCli, installationAt, runKgate, singleJson, startServe, tempDir, type ServeProcess } from './support/cli.ts';
import { TEST_ENGINE } from './support/database.ts';
import type { ScopeChangeBody, ScopeListBody } from './support/rest-scopes.ts';

// While `kgate serve` holds an embedded data directory, the other commands run through it (src/cli/control-channel.ts):
// the same code, the gateway's own services, so their changes are served at once. One gateway serves every test.
describe.runIf(TEST_ENGINE === 'pglite')('the command line beside a running embedded gateway', () => {
  let dir: string;
  let env: Record<string, string>;
  let serve: ServeProcess;
  let owner: { token: string; mappingId: string; accountId: string };

  beforeAll(async () => {
    dir = await tempDir('beside');
    env = { KGATE_DATA_DIR: dir };
    serve = await startServe(env);
    await serve.waitForStdout('the first-start banner', (out) => /SERVICE_MCP_TOKEN=kgp_\w{36}\n/.test(out));
    owner = singleJson(await runKgate(['admin', 'bootstrap', '--json'], env));
  });
  afterAll(() => cleanupCli());

  const api = (path: string, token = owner.token) => fetch(`${serve.url}/api/dev${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('kgate token create runs through the gateway, and the gateway accepts the new token at once', async () => {
    const result = await runKgate(['token', 'create', '--name', 'beside', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout) as { token: string; info: { name: string } };
    expect(created.info.name).toBe('beside');
    expect((await api('/mappings', created.token)).status).toBe(200);
    const listed = await runKgate(['token', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('beside');
  });

  it('kgate import runs through the gateway (a relative folder too), and its notes are read at once', async () => {
    const folder = await tempDir('beside-vault');
    await mkdir(join(folder, 'Inbox'));
    await writeFile(join(folder, 'Inbox', 'From the CLI.md'), '# From the CLI\nimported beside the gateway\n');
    // The gateway runs in another working directory: the folder is taken relative to the command's own.
    const result = await runKgate(['import', relative(REPO_ROOT, folder), '--mapping', owner.mappingId, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ notes: 1, created: 1, rejected: [] });
    const read = await api(`/notes/by-path?mappingId=${owner.mappingId}&path=${encodeURIComponent('Inbox/From the CLI.md')}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { content: string }).content).toContain('imported beside the gateway');
    const events = (await (await api(`/events?mappingId=${owner.mappingId}&order=desc&limit=10`)).json()) as { events: Array<{ path: string; kind: string }> };
    expect(events.events.find((e) => e.path === 'Inbox/From the CLI.md')).toMatchObject({ kind: 'note.created' });
  });

  it('kgate admin bootstrap --password-stdin takes its standard input along to the gateway', async () => {
    const result = await runKgate(['admin', 'bootstrap', '--email', 'second@example.test', '--password-stdin', '--json'], env, {
      input: 'a-long-enough-password\n',
    });
    expect(result.code, result.stderr).toBe(0);
    const second = JSON.parse(result.stdout) as { token: string; created: { account: boolean } };
    expect(second.created.account).toBe(true);
    expect((await api('/mappings', second.token)).status).toBe(200);
  });

  it('kgate scopes create runs through the gateway, which lists the new scope over REST at once', async () => {
    const created = singleJson<ScopeChangeBody>(
      await runKgate(['scopes', 'create', '--mapping', owner.mappingId, '--name', 'Beside', '--tag', 'pilot', '--json'], env),
    );
    expect(created).toMatchObject({ applied: true, scope: { name: 'Beside', tags: ['pilot'] } });
    const response = await api(`/scopes?mappingId=${owner.mappingId}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as ScopeListBody).scopes).toEqual([created.scope]);
  });

  it('kgate runtime runs through the gateway: an organization created beside it is listed at once', async () => {
    const account = singleJson<{ token: string }>(await runKgate(['admin', 'bootstrap', '--email', 'runtime-admin@example.test', '--json'], env));
    expect(account.token).toMatch(/^kgp_/);
    const created = await runKgate(['runtime', 'org', 'create', '--slug', 'beside-org', '--name', 'Beside', '--admin', 'runtime-admin@example.test', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const listed = await runKgate(['runtime', 'org', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('beside-org');
  });

  it('errors come back with their exit codes, and nothing changes', async () => {
    const inventory = async () => ((await (await api(`/notes?mappingId=${owner.mappingId}`)).json()) as { notes: unknown[] }).notes.length;
    const before = await inventory();
    const unknown = await runKgate(['import', REPO_ROOT, '--mapping', '00000000-0000-4000-8000-000000000000', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not_found');
    const usage = await runKgate(['token', 'frobnicate'], env);
    expect(usage.code).not.toBe(0);
    const second = await runKgate(['serve'], env);
    expect(second.code).toBe(75);
    expect(second.stderr).toContain('is in use');
    expect(await inventory()).toBe(before);
  });

  it('refuses a malformed, oversized or other command on the socket with exit 2, and changes nothing', async () => {
    const inventory = async () => ((await (await api(`/notes?mappingId=${owner.mappingId}`)).json()) as { notes: unknown[] }).notes.length;
    const before = await inventory();
    // Speaks the channel's protocol directly: one request line, then the answer's lines until the gateway closes.
    const send = (line: string) =>
      new Promise<Array<{ stdout?: string; stderr?: string; exit?: number }>>((resolve, reject) => {
        const socket = connect(join(dir, 'kgate.sock'));
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
        socket.on('close', () => resolve(answer.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { exit?: number })));
        socket.on('error', reject);
        socket.write(line);
      });
    const request = (argv: unknown) => `${JSON.stringify({ argv, cwd: REPO_ROOT, tty: false, stdin: null })}\n`;
    for (const line of [
      'not json\n',
      request([]),
      request(['serve']),
      request(['import', 42]),
      `${JSON.stringify({ argv: ['token', 'list'], cwd: REPO_ROOT, tty: false, stdin: 'x'.repeat(70 * 1024) })}\n`,
    ]) {
      const answer = await send(line);
      expect(answer.at(-1)).toEqual({ exit: 2 });
      expect(answer[0]?.stderr).toContain('import, export, token, admin, scopes and runtime commands only');
    }
    expect(await inventory()).toBe(before);
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
  });

  it('the socket is the owner’s alone, and goes away with the gateway', async () => {
    const socket = join(dir, 'kgate.sock');
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(await serve.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(socket)).toBe(false);
    // With the gateway gone, the command opens the data directory itself, as before.
    const listed = await runKgate(['token', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('beside');
    // The import's provenance is the operator's at the command line, as without a gateway.
    await installationAt(dir).withDatabase(async (db) => {
      const rows = await db.query<{ credential_kind: string; client: string }>('SELECT credential_kind, client FROM provenance_events WHERE path = $1', [
        'Inbox/From the CLI.md',
      ]);
      expect(rows).toEqual([{ credential_kind: 'operator', client: 'kgate-cli' }]);
    });
  });
});
