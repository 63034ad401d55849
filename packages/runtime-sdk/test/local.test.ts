// The local adapter on real temporary folders: publication with preview and apply, stale and missing hashes, path
// rules and traversal, the trash and restore, bounded listings, hosted-only operations, and no network at all.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalRuntime, type ProductRuntime, type RuntimeEnvelope } from '../src/index.js';

const VAULT = { workspaceId: 'local', vaultId: 'local' };
const hashOf = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

let networkCalls = 0;
const realFetch = globalThis.fetch;
beforeAll(() => {
  // Any use of the network by the local adapter fails the call and is counted.
  globalThis.fetch = () => {
    networkCalls += 1;
    throw new Error('the local adapter must not use the network');
  };
});
afterAll(() => {
  globalThis.fetch = realFetch;
});

let parent: string;
let root: string;
let runtime: ProductRuntime;
beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'kgate-sdk-local-'));
  root = join(parent, 'Workspace');
  await mkdir(root);
  runtime = createLocalRuntime({ root });
});
afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

/** The envelope's data, failing the test when it has none. */
function dataOf<K extends string, D>(envelope: RuntimeEnvelope<K, D>): D {
  if (envelope.status !== 'ok' && envelope.status !== 'partial') throw new Error(`expected data, got ${JSON.stringify(envelope)}`);
  return envelope.data;
}

/** The refusal's problem, failing the test when the call did not fail. */
function refusalOf(envelope: RuntimeEnvelope<string, unknown>) {
  expect(envelope).toMatchObject({ version: 1, kind: 'service.problem', status: 'error', data: null, receipts: [] });
  return envelope.problems[0]!;
}

/** Every file under the parent folder with its bytes: to prove that a refusal changed nothing. */
async function snapshot(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(parent, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[join(entry.parentPath, entry.name)] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

async function publish(path: string, content: string, expectedHash?: string) {
  return runtime.publishNote({ ...VAULT, path, content, dryRun: false, ...(expectedHash ? { expectedHash } : {}) });
}

describe('the local adapter', () => {
  it('takes only a folder: no fetch, no other option', () => {
    expect(() => createLocalRuntime({ root, fetch: realFetch } as unknown as { root: string })).toThrow(TypeError);
    expect(() => createLocalRuntime({} as { root: string })).toThrow(TypeError);
  });

  it('describes itself as local, with one workspace and one vault', async () => {
    expect(dataOf(await runtime.getRuntimeContext())).toEqual({ runtimeVersion: 1, adapter: 'local', workspace: { workspaceId: 'local', vaultId: 'local', name: 'Workspace' } });
    const { capabilities, granted } = dataOf(await runtime.getCapabilities());
    expect(capabilities.find((c) => c.id === 'notes.publish')).toMatchObject({ availability: 'available', scope: 'notes.publish' });
    expect(capabilities.find((c) => c.id === 'scopes.memory')).toMatchObject({ availability: 'unavailable', reasonCode: 'hosted_only' });
    expect(granted).toEqual(['runtime.context', 'runtime.capabilities', 'notes.list', 'notes.read', 'notes.publish', 'notes.transactions', 'notes.trash']);
  });

  it('previews a new note without writing it, then applies it; the read gives the hash of its UTF-8 bytes', async () => {
    const content = '# Plan\n\nCafé au lait.\n';
    const preview = await runtime.publishNote({ ...VAULT, path: 'Projects/plan.md', content });
    expect(preview).toMatchObject({ version: 1, kind: 'service.note-transaction', status: 'ok', problems: [] });
    const [action] = dataOf(preview).actions;
    expect(dataOf(preview)).toMatchObject({ dryRun: true, applied: false });
    expect(action).toMatchObject({ status: 'create', beforeRevision: null, afterRevision: hashOf(content) });
    expect(action!.diff).toContain('+Café au lait.');
    expect(existsSync(join(root, 'Projects/plan.md'))).toBe(false);

    const applied = dataOf(await publish('Projects/plan.md', content));
    expect(applied).toMatchObject({ dryRun: false, applied: true, actions: [{ status: 'create', afterRevision: hashOf(content) }] });
    expect(await readFile(join(root, 'Projects/plan.md'), 'utf8')).toBe(content);

    const note = dataOf(await runtime.readNote({ ...VAULT, path: 'Projects/plan.md' }));
    expect(note).toMatchObject({ path: 'Projects/plan.md', title: 'Plan', content, contentHash: hashOf(content), revision: hashOf(content), size: Buffer.byteLength(content) });
    // No temporary file is left beside the note.
    expect(await readdir(join(root, 'Projects'))).toEqual(['plan.md']);
  });

  it('replaces an existing note only with its current hash: a missing or stale hash changes nothing', async () => {
    await publish('a.md', 'one\n');
    const before = await snapshot();
    expect(refusalOf(await publish('a.md', 'two\n'))).toMatchObject({ code: 'precondition_required' });
    const stale = await publish('a.md', 'two\n', hashOf('zero\n'));
    expect(refusalOf(stale).code).toBe('stale_revision');
    expect(stale).toMatchObject({ httpStatus: 412 });
    expect(await snapshot()).toEqual(before);

    // A preview reports the stale hash on the action instead of failing.
    const preview = dataOf(await runtime.publishNote({ ...VAULT, path: 'a.md', content: 'two\n', expectedHash: hashOf('zero\n') }));
    expect(preview.actions[0]).toMatchObject({ status: 'conflict', beforeRevision: hashOf('one\n'), problem: { code: 'stale_revision' } });

    const updated = dataOf(await publish('a.md', 'two\n', hashOf('one\n')));
    expect(updated.actions[0]).toMatchObject({ status: 'update', beforeRevision: hashOf('one\n'), afterRevision: hashOf('two\n') });
    expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('two\n');
  });

  it.each([
    ['../outside.md', 'dot_segment'],
    ['a/../../outside.md', 'dot_segment'],
    ['/etc/outside.md', 'absolute'],
    ['C:/outside.md', 'absolute'],
    ['a\\outside.md', 'backslash'],
    ['bad\u0000name.md', 'control_character'],
    ['bad\u202ename.md', 'bidi_control'],
    ['.trash/sneaky.md', 'hidden_segment'],
    ['notes.txt', 'not_markdown'],
    ['a//b.md', 'empty_segment'],
    ['con.md', 'reserved_name'],
    ['what?.md', 'reserved_character'],
    ['', 'empty'],
  ])('refuses to write %j (invalid_path %s) and changes nothing', async (path, reason) => {
    const before = await snapshot();
    const answer = await publish(path, 'x\n');
    expect(refusalOf(answer)).toMatchObject({ code: 'invalid_path', details: { reason } });
    expect(answer).toMatchObject({ httpStatus: 400 });
    expect(await snapshot()).toEqual(before);
    expect(existsSync(join(parent, 'outside.md'))).toBe(false);
  });

  it('never follows a symbolic link out of the folder', async () => {
    const outside = join(parent, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'secret.md'), 'secret\n');
    await symlink(outside, join(root, 'linked'));
    await symlink(join(outside, 'secret.md'), join(root, 'secret.md'));

    expect(refusalOf(await runtime.readNote({ ...VAULT, path: 'linked/secret.md' }))).toMatchObject({ code: 'invalid_path', details: { reason: 'symbolic_link' } });
    expect(refusalOf(await runtime.readNote({ ...VAULT, path: 'secret.md' }))).toMatchObject({ code: 'invalid_path', details: { reason: 'symbolic_link' } });
    expect(refusalOf(await publish('linked/new.md', 'x\n'))).toMatchObject({ code: 'invalid_path', details: { reason: 'symbolic_link' } });
    expect(existsSync(join(outside, 'new.md'))).toBe(false);
    expect(dataOf(await runtime.listNotes(VAULT)).notes).toEqual([]);
  });

  it('lists notes in byte order of path, in bounded pages with a cursor, skipping hidden folders', async () => {
    for (const path of ['b.md', 'A/z.md', 'a.md', 'Z.md', 'A/b.md', 'é.md']) await publish(path, `# ${path}\n`);
    await mkdir(join(root, '.obsidian'));
    await writeFile(join(root, '.obsidian', 'hidden.md'), 'hidden\n');
    await writeFile(join(root, 'image.png'), 'not a note');

    const first = dataOf(await runtime.listNotes({ ...VAULT, limit: 4 }));
    expect(first.notes.map((n) => n.path)).toEqual(['A/b.md', 'A/z.md', 'Z.md', 'a.md']);
    expect(first).toMatchObject({ truncated: true });
    const second = dataOf(await runtime.listNotes({ ...VAULT, limit: 4, cursor: first.nextCursor! }));
    expect(second.notes.map((n) => n.path)).toEqual(['b.md', 'é.md']);
    expect(second).toMatchObject({ truncated: false, nextCursor: null });
    expect(second.notes[0]).toMatchObject({ title: 'b.md', revision: hashOf('# b.md\n'), size: 7 });

    const prefixed = dataOf(await runtime.listNotes({ ...VAULT, prefix: 'A/' }));
    expect(prefixed.notes.map((n) => n.path)).toEqual(['A/b.md', 'A/z.md']);

    expect(refusalOf(await runtime.listNotes({ ...VAULT, limit: 0 }))).toMatchObject({ code: 'invalid_request', details: { field: 'limit' } });
    expect(refusalOf(await runtime.listNotes({ ...VAULT, limit: 1001 }))).toMatchObject({ code: 'invalid_request', details: { field: 'limit' } });
    expect(refusalOf(await runtime.listNotes({ ...VAULT, cursor: 'forged' }))).toMatchObject({ code: 'invalid_request', details: { field: 'cursor' } });
  });

  it('answers a partial listing when a Markdown file breaks the path rules', async () => {
    await publish('good.md', 'good\n');
    await writeFile(join(root, 'bad\u0001name.md'), 'bad\n');
    const answer = await runtime.listNotes(VAULT);
    expect(answer.status).toBe('partial');
    expect(dataOf(answer).notes.map((n) => n.path)).toEqual(['good.md']);
    expect(answer.problems).toEqual([expect.objectContaining({ code: 'invalid_path', details: { skipped: 1 } })]);
  });

  it('deletes to .trash/ inside the folder, lists the trash without content, and restores the same bytes', async () => {
    const content = '# Old\n\nkeep me\n';
    await publish('Old.md', content);
    const before = await snapshot();

    // Applying needs the hash; a preview names no trash entry and moves nothing.
    expect(refusalOf(await runtime.applyTransaction({ ...VAULT, actions: [{ type: 'delete-note', path: 'Old.md' }] })).code).toBe('precondition_required');
    const preview = dataOf(await runtime.previewTransaction({ ...VAULT, actions: [{ type: 'delete-note', path: 'Old.md' }] }));
    expect(preview.actions[0]).toMatchObject({ status: 'delete', beforeRevision: hashOf(content), afterRevision: null });
    expect(preview.actions[0]!.trashId).toBeUndefined();
    expect(await snapshot()).toEqual(before);

    const deleted = dataOf(await runtime.applyTransaction({ ...VAULT, actions: [{ type: 'delete-note', path: 'Old.md', expectedHash: hashOf(content) }] }));
    const trashId = deleted.actions[0]!.trashId!;
    expect(deleted.actions[0]).toMatchObject({ status: 'delete', trashId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(existsSync(join(root, 'Old.md'))).toBe(false);
    expect((await readdir(join(root, '.trash'))).sort()).toEqual([`${trashId}.json`, `${trashId}.md`]);
    expect(refusalOf(await runtime.readNote({ ...VAULT, path: 'Old.md' })).code).toBe('not_found');
    expect(dataOf(await runtime.listNotes(VAULT)).notes).toEqual([]);

    const trash = dataOf(await runtime.listTrash(VAULT));
    expect(trash).toMatchObject({ truncated: false, nextCursor: null });
    expect(trash.entries).toEqual([
      { trashId, originalPath: 'Old.md', deletedAt: expect.any(String), deletedBy: 'local', size: Buffer.byteLength(content), contentHash: hashOf(content) },
    ]);

    // Restoring needs the original path, and an empty place there.
    const trashed = await snapshot();
    const elsewhere = await runtime.applyTransaction({ ...VAULT, actions: [{ type: 'restore-note', trashId, path: 'Elsewhere.md' }] });
    expect(refusalOf(elsewhere).code).toBe('invalid_request');
    expect(await snapshot()).toEqual(trashed);

    const restored = dataOf(await runtime.applyTransaction({ ...VAULT, actions: [{ type: 'restore-note', trashId, path: 'Old.md' }] }));
    expect(restored.actions[0]).toMatchObject({ status: 'restore', afterRevision: hashOf(content), trashId });
    expect(await readFile(join(root, 'Old.md'), 'utf8')).toBe(content);
    expect(dataOf(await runtime.listTrash(VAULT)).entries).toEqual([]);
    expect(refusalOf(await runtime.applyTransaction({ ...VAULT, actions: [{ type: 'restore-note', trashId, path: 'Old.md' }] })).code).toBe('not_found');
  });

  it('refuses a restore onto a note that exists again', async () => {
    await publish('n.md', 'first\n');
    const deleted = dataOf(await runtime.applyTransaction({ ...VAULT, actions: [{ type: 'delete-note', path: 'n.md', expectedHash: hashOf('first\n') }] }));
    await publish('n.md', 'second\n');
    const before = await snapshot();
    const answer = await runtime.applyTransaction({ ...VAULT, actions: [{ type: 'restore-note', trashId: deleted.actions[0]!.trashId!, path: 'n.md' }] });
    expect(refusalOf(answer).code).toBe('conflict');
    expect(await snapshot()).toEqual(before);
  });

  it('applies a transaction whole or not at all', async () => {
    await publish('keep.md', 'keep\n');
    const before = await snapshot();
    const answer = await runtime.applyTransaction({
      ...VAULT,
      actions: [
        { type: 'write-note', path: 'new.md', content: 'new\n' },
        { type: 'delete-note', path: 'keep.md', expectedHash: hashOf('stale\n') },
      ],
    });
    expect(refusalOf(answer)).toMatchObject({ code: 'stale_revision', details: { problems: [expect.objectContaining({ index: 1, path: 'keep.md' })] } });
    expect(await snapshot()).toEqual(before);

    const moved = dataOf(
      await runtime.applyTransaction({
        ...VAULT,
        actions: [
          { type: 'write-note', path: 'new.md', content: 'new\n' },
          { type: 'move-note', path: 'keep.md', newPath: 'Archive/keep.md', expectedHash: hashOf('keep\n') },
        ],
      }),
    );
    expect(moved.actions.map((a) => a.status)).toEqual(['create', 'move']);
    expect(await readFile(join(root, 'Archive/keep.md'), 'utf8')).toBe('keep\n');
    expect(existsSync(join(root, 'keep.md'))).toBe(false);
  });

  it('refuses malformed transactions before touching anything', async () => {
    const before = await snapshot();
    const refusals = await Promise.all([
      runtime.applyTransaction({ ...VAULT, actions: [] }),
      runtime.applyTransaction({ ...VAULT, actions: Array.from({ length: 101 }, (_, i) => ({ type: 'write-note' as const, path: `n${i}.md`, content: '' })) }),
      runtime.applyTransaction({ ...VAULT, actions: [{ type: 'write-note', path: 'a.md', content: 'a' }, { type: 'delete-note', path: 'A.md' }] }),
      runtime.applyTransaction({ ...VAULT, actions: [{ type: 'write-note', path: 'a.md', content: 'a', expectedHash: 'md5:abc' }] }),
      runtime.applyTransaction({ ...VAULT, actions: [{ type: 'write-note', path: 'a.md', content: 'a', extra: true } as never] }),
      runtime.applyTransaction({ ...VAULT, actions: [{ type: 'move-note', path: 'a.md', newPath: 'b.md', rewriteLinks: true }] }),
    ]);
    for (const answer of refusals) expect(refusalOf(answer).code).toBe('invalid_request');
    const oversized = await publish('big.md', 'x'.repeat(4 * 1024 * 1024 + 1));
    expect(refusalOf(oversized).code).toBe('payload_too_large');
    expect(await snapshot()).toEqual(before);
  });

  it('keeps one note per path whatever the letter case', async () => {
    await publish('Plan.md', 'one\n');
    const before = await snapshot();
    expect(refusalOf(await publish('plan.md', 'two\n')).code).toBe('conflict');
    expect(await snapshot()).toEqual(before);
  });

  it('answers unavailable for what only the hosted runtime has, with the reason', async () => {
    const answers = [
      await runtime.getWorkspace('local'),
      await runtime.getDomainComposition(),
      await runtime.bindHostedVault(VAULT),
      await runtime.listAvailableScopes(),
      await runtime.getScopeContext('scope'),
      await runtime.getEffectiveScopePolicy('scope'),
      await runtime.getScopeIntelligence('scope'),
      await runtime.getScopeMemory('scope'),
      await runtime.createSharedMemoryCandidate('scope', { title: 't', body: 'b', evidence: [] }),
      await runtime.projectEducation({}),
      await runtime.listNotes({ ...VAULT, scopeId: 'scope' }),
    ];
    for (const answer of answers) {
      expect(answer).toMatchObject({ version: 1, status: 'unavailable', data: null, receipts: [] });
      expect(answer.problems[0]).toMatchObject({ code: 'not_available', details: { reason: 'hosted_only', adapter: 'local' } });
    }
  });

  it('refuses another vault and a folder that is gone', async () => {
    expect(refusalOf(await runtime.listNotes({ workspaceId: 'local', vaultId: 'other' })).code).toBe('not_found');
    await rm(root, { recursive: true });
    expect(refusalOf(await runtime.listNotes(VAULT)).code).toBe('not_found');
    expect(refusalOf(await runtime.getRuntimeContext()).code).toBe('not_found');
  });

  it('never used the network', () => {
    expect(networkCalls).toBe(0);
  });
});
