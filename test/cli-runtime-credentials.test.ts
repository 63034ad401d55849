/**
 * `kgate runtime principal|secret|key|credentials ...`, run as a real child process against a real installation: the
 * operator, as an organization's admin (`--as`), creates a service principal and its credentials; the secret it was
 * shown once obtains a token from the credentials service over the same database; refusals exit 1 with their code and
 * change nothing; usage mistakes exit 2 before any database is opened.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../src/app/services.ts';
import type { Database } from '../src/db/port.ts';
import type { CredentialInfo, PrincipalInfo } from '../src/domains/runtime/credentials/index.ts';
import { cleanupCli, newInstallation, runKgate, singleJson, tempDir, type CliResult, type Installation } from './support/cli.ts';
import { insertRuntimeChain, type RuntimeChain } from './support/runtime-records.ts';

/** For tests that run several commands that each open the database, on a loaded two-core machine. */
const SLOW_MS = 180_000;

afterAll(cleanupCli);

async function emailOf(db: Database, accountId: string): Promise<string> {
  const [row] = await db.query<{ email: string }>('SELECT email FROM accounts WHERE id = $1', [accountId]);
  return row!.email;
}

/** Every principal and credential row, for "nothing changed" assertions. */
async function credentialRows(db: Database): Promise<string> {
  const principals = await db.query('SELECT * FROM runtime_service_principals ORDER BY id');
  const credentials = await db.query('SELECT * FROM runtime_principal_credentials ORDER BY id');
  return JSON.stringify({ principals, credentials });
}

describe('kgate runtime principal, secret, key and credentials', () => {
  let install: Installation;
  let chain: RuntimeChain;
  let admin: string;
  /** An admin of another organization: an account, but not one that administers this principal's. */
  let stranger: string;
  let folder: string;
  let principal: PrincipalInfo;
  let secret: { clientId: string; credentialId: string; clientSecret: string };

  const kgate = (...args: string[]) => runKgate(['runtime', ...args], install.env);
  const json = <T>(...args: string[]) => kgate(...args, '--json').then((result) => singleJson<T>(result));
  /** The client credentials grant with client_secret_post, in-process over the installation's database. */
  const grant = (clientSecret: string) =>
    install.withDatabase((db) =>
      createServices(db)
        .runtimeCredentials.grantToken(new URLSearchParams({ grant_type: 'client_credentials', client_id: principal.id, client_secret: clientSecret }))
        .then(
          (answer) => answer,
          (error: { error?: string }) => ({ refused: error.error }),
        ),
    );
  const exited = (result: CliResult) => ({ code: result.code, stderr: result.stderr });

  beforeAll(async () => {
    install = await newInstallation();
    ({ chain, admin, stranger } = await install.withDatabase(async (db) => {
      const ours = await insertRuntimeChain(db);
      const theirs = await insertRuntimeChain(db);
      return { chain: ours, admin: await emailOf(db, ours.adminAccountId), stranger: await emailOf(db, theirs.adminAccountId) };
    }));
    folder = await tempDir('runtime-keys');
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await writeFile(join(folder, 'public.json'), JSON.stringify(publicKey.export({ format: 'jwk' })));
    await writeFile(join(folder, 'private.json'), JSON.stringify(privateKey.export({ format: 'jwk' })));
  }, SLOW_MS);

  it('creates a principal and a secret shown once on stdout, which obtains a token', async () => {
    principal = await json<PrincipalInfo>('principal', 'create', '--installation', chain.installationId, '--name', 'Acme sync', '--scope', 'notes.publish', '--scope', 'media.read', '--as', admin);
    expect(principal).toMatchObject({ installationId: chain.installationId, name: 'Acme sync', scopes: ['media.read', 'notes.publish'], status: 'active' });

    const added = await kgate('secret', 'add', principal.id, '--as', admin);
    expect(exited(added)).toEqual({ code: 0, stderr: '' });
    const lines = added.stdout.split('\n');
    const clientSecret = /^client_secret: (kgcs_\S+)$/.exec(lines[2] ?? '')?.[1] ?? '';
    const credentialId = /^Added client secret (\S+) to service principal /.exec(lines[0] ?? '')?.[1] ?? '';
    secret = { clientId: principal.id, credentialId, clientSecret };
    expect(lines).toEqual([
      `Added client secret ${credentialId} to service principal ${principal.id}.`,
      `client_id:     ${principal.id}`,
      `client_secret: ${clientSecret}`,
      'This secret cannot be shown again: store it now.',
      '',
    ]);

    expect(await grant(clientSecret)).toMatchObject({ access_token: expect.stringMatching(/^kgrp_/), token_type: 'Bearer', scope: 'media.read notes.publish' });
  }, SLOW_MS);

  it('registers a public key and lists credentials without their secrets', async () => {
    const key = await json<CredentialInfo>('key', 'add', principal.id, '--jwk', join(folder, 'public.json'), '--kid', 'laptop-1', '--as', admin);
    expect(key).toMatchObject({ principalId: principal.id, kind: 'public_key', keyId: 'laptop-1', status: 'active' });
    expect(Object.keys(key.publicJwk ?? {}).sort()).toEqual(['crv', 'kty', 'x', 'y']);

    const listed = await kgate('credentials', 'list', principal.id, '--as', admin);
    expect(exited(listed)).toEqual({ code: 0, stderr: '' });
    expect(listed.stdout).not.toContain(secret.clientSecret);
    const [keyLine, secretLine] = listed.stdout.trimEnd().split('\n');
    expect(keyLine).toMatch(new RegExp(`^public_key ${key.id}, key id laptop-1, active, created \\S+Z, last used never$`));
    // The grant above used the secret: its last use shows.
    expect(secretLine).toMatch(new RegExp(`^client_secret ${secret.credentialId}, secret kgcs_…${secret.clientSecret.slice(-4)}, active, created \\S+Z, last used \\S+Z$`));
  }, SLOW_MS);

  it('refuses an admin of another organization and a private key, with their codes, exit 1 and nothing changed', async () => {
    const before = await install.withDatabase(credentialRows);
    for (const [args, code] of [
      [['principal', 'create', '--installation', chain.installationId, '--name', 'Theirs', '--scope', 'media.read', '--as', stranger], 'not_found'],
      [['secret', 'add', principal.id, '--as', stranger], 'not_found'],
      [['key', 'add', principal.id, '--jwk', join(folder, 'private.json'), '--as', admin], 'invalid_request'],
    ] as Array<[string[], string]>) {
      const result = await kgate(...args);
      expect({ args, exit: result.code, stdout: result.stdout, code: result.stderr.includes(`(${code})`) }).toEqual({ args, exit: 1, stdout: '', code: true });
    }
    expect(await install.withDatabase(credentialRows)).toBe(before);
  }, SLOW_MS);

  it('revokes a secret, whose grant then fails, and a principal twice, harmlessly', async () => {
    const revoked = await kgate('secret', 'revoke', secret.credentialId, '--as', admin);
    expect({ ...exited(revoked), stdout: revoked.stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: `Credential ${secret.credentialId} (client_secret) of principal ${principal.id} is revoked; tokens issued from it no longer work.\n`,
    });
    expect(await grant(secret.clientSecret)).toEqual({ refused: 'invalid_client' });

    const first = await json<PrincipalInfo>('principal', 'revoke', principal.id, '--as', admin);
    const second = await json<PrincipalInfo>('principal', 'revoke', principal.id, '--as', admin);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ id: principal.id, status: 'revoked' });
    const listed = await json<PrincipalInfo[]>('principal', 'list', '--installation', chain.installationId, '--as', admin);
    expect(listed).toEqual([first]);
  }, SLOW_MS);

  it('answers usage mistakes with exit 2 before opening any database', async () => {
    const fresh = join(await tempDir('runtime-credentials-usage'), 'data');
    const id = '00000000-0000-4000-8000-000000000000';
    for (const args of [
      ['principal', 'create', '--installation', id, '--name', 'n', '--scope', 'media.read'],
      ['principal', 'list', '--as', 'a@example.test'],
      ['secret', 'add', '--as', 'a@example.test'],
      ['secret', 'rotate', id, '--as', 'a@example.test'],
      ['key', 'add', id, '--as', 'a@example.test'],
      ['credentials', 'list', id, id, '--as', 'a@example.test'],
    ]) {
      const result = await runKgate(['runtime', ...args], { KGATE_DATA_DIR: fresh });
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
    }
    // A JWK file that cannot be read is the operator's to fix: exit 1, and still no database opened.
    const missing = await runKgate(['runtime', 'key', 'add', id, '--jwk', join(fresh, 'absent.json'), '--as', 'a@example.test'], { KGATE_DATA_DIR: fresh });
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 1, stderr: `kgate: cannot read the JWK file ${join(fresh, 'absent.json')}: ENOENT\n` });
    expect(existsSync(fresh)).toBe(false);
  }, SLOW_MS);
});
