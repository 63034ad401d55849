/**
 * The local adapter (spec 1.8): the Product Runtime over a local workspace folder of Markdown notes. It never
 * uploads: it has no network at all (it takes no fetch and calls none). Notes, publication, transactions and the
 * trash work on the folder with the server's rules; what only the hosted runtime has (scopes, memory, workspaces,
 * vault binding, the education projection) answers `unavailable` with the reason.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { RuntimeEnvelope, UnavailableEnvelope } from './envelope.js';
import { errorEnvelope, okEnvelope, partialEnvelope, problem, unavailableEnvelope } from './make-envelope.js';
import { HOSTED_ONLY_REASON, localCapabilities } from './local/capabilities.js';
import { listLocalNotes, listLocalTrash, readLocalNote } from './local/reads.js';
import { LocalRefusal, invalidRequest, notFound } from './local/refusal.js';
import { runLocalTransaction } from './local/transactions.js';
import type { ProductRuntime, VaultRef } from './runtime.js';

/** Options of createLocalRuntime: only the folder. There is deliberately no `fetch`: the local adapter never uploads. */
export interface LocalRuntimeOptions {
  /** The local workspace folder of Markdown notes. */
  root: string;
}

/** The workspace id and vault id the local adapter answers in getRuntimeContext and accepts in a VaultRef. */
export const LOCAL_WORKSPACE_ID = 'local';
/** See LOCAL_WORKSPACE_ID. */
export const LOCAL_VAULT_ID = 'local';

function hostedOnly<K extends string>(kind: K, operation: string): UnavailableEnvelope<K> {
  return unavailableEnvelope(
    kind,
    problem('not_available', `${operation} is ${HOSTED_ONLY_REASON}.`, {
      reason: 'hosted_only',
      adapter: 'local',
    }),
  );
}

/** A stream of one event (the local adapter's answer to a streamed operation it does not have). */
async function* onlyEvent<T>(event: T): AsyncGenerator<T, void, undefined> {
  yield await Promise.resolve(event);
}

/** Creates the local adapter over `root`. Throws a TypeError for options it does not take (such as `fetch`). */
export function createLocalRuntime(options: LocalRuntimeOptions): ProductRuntime {
  if (typeof options?.root !== 'string' || options.root === '') throw new TypeError('createLocalRuntime needs { root }: the workspace folder.');
  const extra = Object.keys(options).filter((key) => key !== 'root');
  if (extra.length > 0) throw new TypeError(`createLocalRuntime takes only { root }; not ${extra.join(', ')}. The local adapter never uses the network.`);
  const root = resolve(options.root);
  const name = basename(root);

  /** The folder's real path, checked at each call: it may be removed or replaced while the runtime lives. */
  async function folder(): Promise<string> {
    const real = await realpath(root).catch(() => undefined);
    if (real === undefined || !(await stat(real)).isDirectory()) throw notFound('The local workspace folder does not exist.');
    return real;
  }

  /** Runs an operation, turning refusals and I/O failures into `error` envelopes: the SDK does not throw on answers. */
  async function answer<K extends string, D>(kind: K, run: () => Promise<RuntimeEnvelope<K, D>>): Promise<RuntimeEnvelope<K, D>> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof LocalRefusal) return errorEnvelope(error.toProblem(), error.httpStatus);
      const code = (error as NodeJS.ErrnoException).code;
      return errorEnvelope(problem('local_io_error', `The workspace folder could not be used: ${(error as Error).message}`, code ? { errno: code } : undefined), 500);
    }
  }

  /** The folder, after checking the vault reference names the local vault, without a scope. */
  async function vault<K extends string>(kind: K, ref: VaultRef): Promise<string | UnavailableEnvelope<K>> {
    if (ref.scopeId !== undefined) {
      return unavailableEnvelope(kind, problem('not_available', 'The local adapter has no context scopes.', { reason: 'hosted_only', adapter: 'local' }));
    }
    if (ref.workspaceId !== LOCAL_WORKSPACE_ID || ref.vaultId !== LOCAL_VAULT_ID) {
      throw notFound(`The local adapter has one workspace and one vault, both "${LOCAL_WORKSPACE_ID}".`);
    }
    return folder();
  }

  const dryRunOf = (value: unknown): boolean => {
    if (value === undefined) return true;
    if (typeof value !== 'boolean') throw invalidRequest('dryRun is a boolean.', 'dryRun');
    return value;
  };

  return {
    adapter: 'local',
    getRuntimeContext: () =>
      answer('service.runtime-context', async () => {
        await folder();
        return okEnvelope('service.runtime-context', {
          runtimeVersion: 1,
          adapter: 'local',
          workspace: { workspaceId: LOCAL_WORKSPACE_ID, vaultId: LOCAL_VAULT_ID, name },
        });
      }),
    getCapabilities: () => Promise.resolve(okEnvelope('service.runtime-capabilities', localCapabilities())),
    getWorkspace: () => Promise.resolve(hostedOnly('service.workspace', 'getWorkspace')),
    getDomainComposition: () => Promise.resolve(hostedOnly('service.domain-composition', 'getDomainComposition')),
    listNotes: (params) =>
      answer('service.note-list', async () => {
        const at = await vault('service.note-list', params);
        if (typeof at !== 'string') return at;
        const { data, problems } = await listLocalNotes(at, params);
        return problems.length > 0 ? partialEnvelope('service.note-list', data, problems) : okEnvelope('service.note-list', data);
      }),
    readNote: (params) =>
      answer('service.note', async () => {
        const at = await vault('service.note', params);
        return typeof at === 'string' ? okEnvelope('service.note', await readLocalNote(at, params.path)) : at;
      }),
    publishNote: (params) =>
      answer('service.note-transaction', async () => {
        const at = await vault('service.note-transaction', params);
        if (typeof at !== 'string') return at;
        const action = { type: 'write-note', path: params.path, content: params.content, ...(params.expectedHash !== undefined ? { expectedHash: params.expectedHash } : {}) };
        return okEnvelope('service.note-transaction', await runLocalTransaction(at, [action], !dryRunOf(params.dryRun)));
      }),
    previewTransaction: (params) =>
      answer('service.note-transaction', async () => {
        const at = await vault('service.note-transaction', params);
        return typeof at === 'string' ? okEnvelope('service.note-transaction', await runLocalTransaction(at, params.actions, false)) : at;
      }),
    applyTransaction: (params) =>
      answer('service.note-transaction', async () => {
        const at = await vault('service.note-transaction', params);
        return typeof at === 'string' ? okEnvelope('service.note-transaction', await runLocalTransaction(at, params.actions, true)) : at;
      }),
    listTrash: (params) =>
      answer('service.trash-list', async () => {
        const at = await vault('service.trash-list', params);
        if (typeof at !== 'string') return at;
        const { data, problems } = await listLocalTrash(at, params);
        return problems.length > 0 ? partialEnvelope('service.trash-list', data, problems) : okEnvelope('service.trash-list', data);
      }),
    bindHostedVault: () => Promise.resolve(hostedOnly('service.hosted-vault', 'bindHostedVault')),
    listAvailableScopes: () => Promise.resolve(hostedOnly('service.scope-list', 'listAvailableScopes')),
    getScopeContext: () => Promise.resolve(hostedOnly('service.scope-context', 'getScopeContext')),
    getEffectiveScopePolicy: () => Promise.resolve(hostedOnly('service.scope-policy', 'getEffectiveScopePolicy')),
    getScopeIntelligence: () => Promise.resolve(hostedOnly('service.scope-intelligence', 'getScopeIntelligence')),
    getScopeMemory: () => Promise.resolve(hostedOnly('service.scope-memory', 'getScopeMemory')),
    createSharedMemoryCandidate: () => Promise.resolve(hostedOnly('service.memory-candidate', 'createSharedMemoryCandidate')),
    projectEducation: () => Promise.resolve(hostedOnly('service.education-projection', 'projectEducation')),
    generateEducationContent: () => Promise.resolve(hostedOnly('service.education-generation', 'generateEducationContent')),
    streamEducationContent: () => onlyEvent({ type: 'done' as const, envelope: hostedOnly('service.education-generation', 'streamEducationContent') }),
    reviewPractice: () => Promise.resolve(hostedOnly('service.education-practice-review', 'reviewPractice')),
    draftAssessment: () => Promise.resolve(hostedOnly('service.education-assessment-draft', 'draftAssessment')),
    reviewQuality: () => Promise.resolve(hostedOnly('service.education-quality-review', 'reviewQuality')),
    draftRubric: () => Promise.resolve(hostedOnly('service.education-rubric-draft', 'draftRubric')),
    listRubrics: () => Promise.resolve(hostedOnly('service.education-rubrics', 'listRubrics')),
    getRubric: () => Promise.resolve(hostedOnly('service.education-rubric', 'getRubric')),
    generateImage: () => Promise.resolve(hostedOnly('service.education-image', 'generateImage')),
    studentGuidance: () => Promise.resolve(hostedOnly('service.education-student-guidance', 'studentGuidance')),
  };
}
