/**
 * `kgate packs publish DIR [--as EMAIL]`, run as a real child process against a real installation: the operator, or
 * an admin of the product's organization, publishes a pack folder; an unchanged folder stores nothing; a folder with
 * problems is refused with each problem as FILE:LINE and pack_invalid before any database opens; refusals of the
 * publication exit 1 with their code and store nothing; and beside a running embedded gateway the command runs
 * through it.
 */
import { existsSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/port.ts';
import type { PublishOutcome } from '../src/domains/packs/index.ts';
import { REPO_ROOT, cleanupCli, installationAt, newInstallation, runKgate, singleJson, startServe, tempDir, type Installation } from './support/cli.ts';
import { TEST_ENGINE } from './support/database.ts';

/** For tests that initialize a database, or run several commands that each open it, on a loaded two-core machine. */
const SLOW_MS = 180_000;
const ADMIN = 'owner@example.test';
const OTHER = 'other@example.test';
const EXAMPLE = join(REPO_ROOT, 'examples', 'packs', 'k8-math');

afterAll(cleanupCli);

/** Every row of the pack tables, for "nothing stored" assertions. */
async function packRows(db: Database): Promise<string> {
  const tables = ['intelligence_packs', 'intelligence_pack_versions', 'intelligence_pack_texts', 'intelligence_pack_assertions', 'intelligence_pack_evidence'];
  const parts: unknown[] = [];
  for (const table of tables) parts.push(await db.query(`SELECT * FROM ${table} ORDER BY 1, 2`));
  return JSON.stringify(parts);
}

/** A copy of the example pack in a temp folder, with `edit` applied to the text of each file it names. */
async function editedExample(label: string, edits: Record<string, (text: string) => string>): Promise<string> {
  const dir = await tempDir(label);
  await cp(EXAMPLE, dir, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
    const path = join(dir, file);
    const before = await readFile(path, 'utf8');
    const after = edit(before);
    if (after === before) throw new Error(`the edit of ${file} changed nothing`);
    await writeFile(path, after);
  }
  return dir;
}

/** The 1-based line of `file` in `dir` that first contains `text`. */
async function lineOf(dir: string, file: string, text: string): Promise<number> {
  const index = (await readFile(join(dir, file), 'utf8')).split('\n').findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

describe('kgate packs publish', () => {
  let install: Installation;
  let assertions: number;

  const kgate = (...args: string[]) => runKgate(['packs', ...args], install.env);

  beforeAll(async () => {
    install = await newInstallation();
    singleJson(await runKgate(['admin', 'bootstrap', '--empty', '--email', ADMIN, '--json'], install.env));
    singleJson(await runKgate(['admin', 'bootstrap', '--empty', '--email', OTHER, '--json'], install.env));
    singleJson(await runKgate(['runtime', 'org', 'create', '--slug', 'riverton', '--name', 'Riverton', '--admin', ADMIN, '--json'], install.env));
    singleJson(await runKgate(['runtime', 'product', 'create', '--org', 'riverton', '--slug', 'tutor', '--name', 'Tutor', '--json'], install.env));
    assertions = (await readFile(join(EXAMPLE, 'assertions.yaml'), 'utf8')).split('\n').filter((line) => line.startsWith('- id:')).length;
  }, SLOW_MS);

  it('publishes the example pack as the operator, then answers an unchanged folder without storing anything', async () => {
    const published = await kgate('publish', relative(REPO_ROOT, EXAMPLE));
    expect({ code: published.code, stdout: published.stdout, stderr: published.stderr }).toEqual({
      code: 0,
      stdout: `published tutor/k8-math version 1 (2 sources, ${assertions} assertions, 2 insights)\n`,
      stderr: '',
    });
    const before = await install.withDatabase(packRows);
    const again = await kgate('publish', EXAMPLE);
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: 'unchanged: tutor/k8-math version 1 already holds this content\n' });
    expect(await install.withDatabase(packRows)).toBe(before);
    const rows = await install.withDatabase((db) => db.query('SELECT version, published_by FROM intelligence_pack_versions ORDER BY version'));
    expect(rows).toEqual([{ version: 1, published_by: 'operator' }]);
  }, SLOW_MS);

  it('publishes changed content as an admin of the organization (--as), as version 2', async () => {
    const dir = await editedExample('changed', { 'pack.yaml': (text) => text.replace('title: Riverton K-8', 'title: Revised Riverton K-8') });
    const outcome = singleJson<PublishOutcome>(await kgate('publish', dir, '--as', ADMIN, '--json'));
    expect(outcome).toMatchObject({ created: true, info: { productSlug: 'tutor', packSlug: 'k8-math', version: 2 }, counts: { sources: 2, assertions, insights: 2 } });
    const rows = await install.withDatabase((db) =>
      db.query<{ version: number; published_by: string; title: string }>('SELECT version, published_by, title FROM intelligence_pack_versions ORDER BY version'),
    );
    const [admin] = await install.withDatabase((db) => db.query<{ id: string }>('SELECT id FROM accounts WHERE email = $1', [ADMIN]));
    expect(rows.map((row) => [row.version, row.published_by])).toEqual([
      [1, 'operator'],
      [2, `account:${admin!.id}`],
    ]);
    expect(rows[1]!.title).toMatch(/^Revised Riverton K-8/);
  }, SLOW_MS);

  it('refuses a pack folder with problems, naming each file and line, before any database opens', async () => {
    const dir = await editedExample('broken', {
      'assertions.yaml': (text) => text.replace('quote: "3.NF.2 Represent', 'quote: "3.NF.2 Misquote'),
      'insights.yaml': (text) => text.replace('derivedFrom: [number-line-g3, length-models-first]', 'derivedFrom: [number-line-g3, no-such-assertion]'),
    });
    const quoteLine = await lineOf(dir, 'assertions.yaml', '3.NF.2 Misquote');
    const derivedLine = await lineOf(dir, 'insights.yaml', 'no-such-assertion');
    const problems = [
      `${join(dir, 'assertions.yaml')}:${quoteLine}: the quote does not match lines 9-9 of sources/state-math-standards/2017.md`,
      `${join(dir, 'insights.yaml')}:${derivedLine}: derived from an unknown assertion "no-such-assertion"`,
    ];
    // A data directory that does not exist yet stays absent: the refusal comes before the database would open.
    const unopened = join(await tempDir('unopened'), 'data');
    const refused = await runKgate(['packs', 'publish', dir], { KGATE_DATA_DIR: unopened });
    expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: [...problems, `kgate: The pack folder ${dir} has 2 problems; nothing was stored. (pack_invalid)`, ''].join('\n'),
    });
    expect(existsSync(unopened)).toBe(false);

    // A file that fails its own schema is named too (the cross-file rules then wait for it).
    const badDate = await editedExample('bad-date', { 'pack.yaml': (text) => text.replace('published: 2017-06-01', 'published: 2017-02-30') });
    const dateLine = await lineOf(badDate, 'pack.yaml', 'published: 2017-02-30');
    const dated = await runKgate(['packs', 'publish', badDate], { KGATE_DATA_DIR: unopened });
    expect({ code: dated.code, stderr: dated.stderr }).toEqual({
      code: 1,
      stderr: [
        `${join(badDate, 'pack.yaml')}:${dateLine}: sources.0.versions.0.published: expected a real calendar date YYYY-MM-DD`,
        `kgate: The pack folder ${badDate} has 1 problem; nothing was stored. (pack_invalid)`,
        '',
      ].join('\n'),
    });
    expect(existsSync(unopened)).toBe(false);

    // Against the installation too: nothing is stored.
    const before = await install.withDatabase(packRows);
    const relativeDir = relative(REPO_ROOT, dir);
    const again = await kgate('publish', relativeDir);
    expect({ code: again.code, stdout: again.stdout, invalid: again.stderr.endsWith('(pack_invalid)\n') }).toEqual({ code: 1, stdout: '', invalid: true });
    // Paths as the command named the folder.
    expect(again.stderr.split('\n')[0]).toBe(problems[0]!.replace(dir, relativeDir));
    expect(await install.withDatabase(packRows)).toBe(before);
  }, SLOW_MS);

  it('refuses an unknown product, an account that is not an admin and an unknown account with not_found, storing nothing', async () => {
    const unknownProduct = await editedExample('unknown-product', { 'pack.yaml': (text) => text.replace('product: tutor', 'product: no-such-product') });
    const changed = await editedExample('not-admin', { 'pack.yaml': (text) => text.replace('title: Riverton K-8', 'title: Another Riverton K-8') });
    const before = await install.withDatabase(packRows);
    for (const args of [
      ['publish', unknownProduct],
      ['publish', unknownProduct, '--as', ADMIN],
      ['publish', changed, '--as', OTHER],
      ['publish', changed, '--as', 'nobody@example.test'],
    ]) {
      const result = await kgate(...args);
      expect({ args, code: result.code, stdout: result.stdout, notFound: result.stderr.endsWith('(not_found)\n') }).toEqual({ args, code: 1, stdout: '', notFound: true });
    }
    expect(await install.withDatabase(packRows)).toBe(before);
  }, SLOW_MS);

  it('refuses usage mistakes with exit 2, and a path that is not a folder with exit 1', async () => {
    for (const args of [[], ['frobnicate'], ['publish'], ['publish', EXAMPLE, 'extra'], ['publish', EXAMPLE, '--as', ' '], ['publish', EXAMPLE, '--unknown']]) {
      const result = await kgate(...args);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
    }
    const notFolder = await kgate('publish', join(EXAMPLE, 'pack.yaml'));
    expect({ code: notFolder.code, stderr: notFolder.stderr }).toEqual({ code: 1, stderr: `kgate: ${join(EXAMPLE, 'pack.yaml')} is not a folder\n` });
    const help = await runKgate(['packs', 'publish', '--help'], install.env);
    expect({ code: help.code, usage: help.stdout.includes('kgate packs publish DIR [--as EMAIL] [--json]') }).toEqual({ code: 0, usage: true });
  }, SLOW_MS);
});

// While `kgate serve` holds the embedded data directory, the command runs through its control channel.
describe.runIf(TEST_ENGINE === 'pglite')('kgate packs publish beside a running embedded gateway', () => {
  it('publishes through the gateway, and the version is stored', async () => {
    const dir = await tempDir('packs-beside');
    const env = { KGATE_DATA_DIR: dir };
    const serve = await startServe(env);
    await serve.waitForStdout('the first-start banner', (out) => /SERVICE_MCP_TOKEN=kgp_\w{36}\n/.test(out));
    singleJson(await runKgate(['admin', 'bootstrap', '--email', ADMIN, '--json'], env));
    singleJson(await runKgate(['runtime', 'org', 'create', '--slug', 'riverton', '--name', 'Riverton', '--admin', ADMIN, '--json'], env));
    singleJson(await runKgate(['runtime', 'product', 'create', '--org', 'riverton', '--slug', 'tutor', '--name', 'Tutor', '--json'], env));
    const published = await runKgate(['packs', 'publish', relative(REPO_ROOT, EXAMPLE), '--as', ADMIN], env);
    expect({ code: published.code, stderr: published.stderr }).toEqual({ code: 0, stderr: '' });
    expect(published.stdout).toMatch(/^published tutor\/k8-math version 1 \(2 sources, \d+ assertions, 2 insights\)\n$/);
    expect(await serve.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const rows = await installationAt(dir).withDatabase((db) => db.query('SELECT version FROM intelligence_pack_versions'));
    expect(rows).toEqual([{ version: 1 }]);
  }, SLOW_MS);
});
