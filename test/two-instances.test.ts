import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../src/app/services.ts';
import { cleanupCli, newInstallation, runKgate, startServe, until, type Installation, type ServeProcess } from './support/cli.ts';
import { TEST_ENGINE } from './support/database.ts';
import { createOwner, type Owner } from './support/fixtures.ts';

// Two real `kgate serve` processes behind one PostgreSQL database, as users run several instances behind a load
// balancer: each keeps credentials, authority and note bodies in memory, and neither may ever answer with what the
// other (or a third process, the CLI) has changed since.
describe.runIf(TEST_ENGINE === 'postgres')('two gateway processes on one PostgreSQL', () => {
  let installation: Installation;
  let services: Services;
  let owner: Owner;
  let a: ServeProcess;
  let b: ServeProcess;

  beforeAll(async () => {
    installation = await newInstallation();
    await installation.withDatabase(async (db) => {
      services = createServices(db);
      owner = await createOwner(services, 'two');
    });
    [a, b] = await Promise.all([startServe(installation.env), startServe(installation.env)]);
  });
  // Stops both servers and closes the installation's database.
  afterAll(() => cleanupCli());

  const request = (server: ServeProcess, path: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${server.url}/api/dev${path}`, {
      ...init,
      headers: { authorization: `Bearer ${init.token ?? owner.token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
  const readNote = (server: ServeProcess, path: string) =>
    request(server, `/notes/by-path?mappingId=${owner.mapping.id}&path=${encodeURIComponent(path)}`);
  const read = async (server: ServeProcess, path: string) => {
    const response = await readNote(server, path);
    return response.status === 200 ? ((await response.json()) as { content: string }).content : response.status;
  };
  /** Writes through `server`, replacing the note it reads there now (its hash as the precondition). */
  const write = async (server: ServeProcess, path: string, content: string) => {
    const current = await readNote(server, path);
    const expectedHash = current.status === 200 ? ((await current.json()) as { revision: string }).revision : undefined;
    const response = await request(server, '/notes', {
      method: 'POST',
      headers: { 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ mappingId: owner.mapping.id, path, content, dryRun: false, ...(expectedHash ? { expectedHash } : {}) }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
  };
  const logged = (server: ServeProcess, text: string) => server.stdout().split('\n').filter((line) => line.includes(text)).length;

  it('a write through one is read by the other as soon as its notice arrives, each time', async () => {
    await write(a, 'shared/note.md', 'round 0\n');
    let previous = 'round 0\n';
    for (let round = 1; round <= 6; round++) {
      const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
      // The reader holds the note in memory (read twice: the second answer comes from there) ...
      expect([await read(reader, 'shared/note.md'), await read(reader, 'shared/note.md')]).toEqual([previous, previous]);
      const content = `round ${round}\n`;
      await write(writer, 'shared/note.md', content);
      // ... and reads the new content once PostgreSQL's notice of the write has reached it: on one machine that is
      // almost always the very next read, but the notice and the next request can reach the reader's event loop in
      // the same turn, in either order (docs/operations.md, "Reads from memory"). Meanwhile it may only answer
      // with what it held, never with anything older; a reader that never learns of the write fails on the test's
      // timeout.
      const seen: unknown[] = [];
      for (;;) {
        const answer = await read(reader, 'shared/note.md');
        seen.push(answer);
        if (answer === content) break;
        expect(answer, `round ${round}: answers so far ${JSON.stringify(seen)}`).toBe(previous);
      }
      previous = content;
    }
  });

  it('a token revoked elsewhere is refused by both', async () => {
    const issued = await services.tokens.issueToken({ accountId: owner.accountId, name: 'revoke-me' });
    const whoami = (server: ServeProcess) => fetch(`${server.url}/api/account`, { headers: { authorization: `Bearer ${issued.token}` } });
    // Resolved once by each, so that each would now answer from memory.
    expect([(await whoami(a)).status, (await whoami(b)).status]).toEqual([200, 200]);
    const revoked = await runKgate(['token', 'revoke', '--email', owner.email, '--id', issued.info.id], installation.env);
    expect(revoked.code, revoked.stderr).toBe(0);
    // Each refuses the token once PostgreSQL's notice of the revocation has reached it, as for writes (above): the
    // notice and the next request can reach a gateway's event loop in the same turn, in either order. Meanwhile it
    // may only answer as it did; once it refused, it never accepts the token again. A gateway that never learns of
    // the revocation fails on the test's timeout.
    for (const server of [a, b]) {
      const seen: number[] = [];
      for (;;) {
        const status = (await whoami(server)).status;
        seen.push(status);
        if (status === 401) break;
        expect(status, `answers so far ${JSON.stringify(seen)}`).toBe(200);
      }
      expect([(await whoami(server)).status, (await whoami(server)).status]).toEqual([401, 401]);
    }
  });

  it('allowances never overshoot across the two', async () => {
    const reader = await createOwner(services, 'allowance');
    await services.notes.importNotes(reader.actor, reader.mapping.id, [{ path: 'a.md', content: 'a\n' }]);
    const allowance = 25;
    await services.accounts.setAllowanceOverrides(reader.accountId, { restOperationsPerMonth: allowance });
    const path = `/notes/by-path?mappingId=${reader.mapping.id}&path=a.md`;
    const statuses = await Promise.all(
      Array.from({ length: 80 }, (_, k) => request(k % 2 === 0 ? a : b, path, { token: reader.token }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(allowance);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    const used = await installation.withDatabase((db) =>
      db.query<{ used: number }>("SELECT coalesce(sum(used), 0)::int AS used FROM usage_counters WHERE account_id = $1 AND period = 'month'", [reader.accountId]),
    );
    expect(used[0]!.used).toBeLessThanOrEqual(allowance);
  });

  it('killing the listening connections turns the caches off: changes are still seen on the next request', async () => {
    await write(a, 'shared/down.md', 'before\n');
    expect([await read(a, 'shared/down.md'), await read(b, 'shared/down.md')]).toEqual(['before\n', 'before\n']);
    const lost = [logged(a, 'vault notifications lost'), logged(b, 'vault notifications lost')];
    await installation.withDatabase((db) =>
      db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kgate-listener' AND datname = current_database()"),
    );
    await until('both to report the lost notifications', () =>
      logged(a, 'vault notifications lost') > lost[0]! && logged(b, 'vault notifications lost') > lost[1]!,
    );
    // Changed by a third party while no notice can arrive: both see it at once, because both read the database.
    await installation.withDatabase(async (db) => {
      await db.transaction(async (tx) => {
        await tx.query("UPDATE notes SET content = 'after\n' WHERE vault_id = $1 AND path = 'shared/down.md'", [owner.mapping.vaultId]);
        await tx.query('UPDATE vaults SET content_version = content_version + 1 WHERE id = $1', [owner.mapping.vaultId]);
      });
    });
    expect([await read(a, 'shared/down.md'), await read(b, 'shared/down.md')]).toEqual(['after\n', 'after\n']);
    await until('both to listen again', () => logged(a, 'vault notifications restored') > 0 && logged(b, 'vault notifications restored') > 0);
    await write(b, 'shared/down.md', 'again\n');
    expect(await read(a, 'shared/down.md')).toBe('again\n');
  });
});
