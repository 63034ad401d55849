/**
 * A partner's product, as test/runtime-sdk-hosted.test.ts runs it with Node: a scratch project that installed the
 * packed @kgate/runtime-sdk and imports it by its package name. Each step's envelope is printed in one JSON object.
 * Plain JavaScript, as a partner would write it; kept as text because it runs in the scratch project, not here.
 */
export const RUNTIME_SDK_SCENARIO = String.raw`
import { mkdirSync } from 'node:fs';
import { createHostedRuntime, createLocalRuntime } from '@kgate/runtime-sdk';

const env = process.env;
const runtime = createHostedRuntime({
  baseUrl: env.KGATE_URL,
  clientId: env.KGATE_CLIENT_ID,
  credentials: { clientSecret: env.KGATE_CLIENT_SECRET },
  retries: 0,
});
const vault = { workspaceId: env.KGATE_WORKSPACE_ID, vaultId: env.KGATE_VAULT_ID };
const path = 'SDK/hello.md';
const steps = {};

steps.context = await runtime.getRuntimeContext();
steps.capabilities = await runtime.getCapabilities();
steps.workspace = await runtime.getWorkspace(vault.workspaceId);
steps.listBefore = await runtime.listNotes({ ...vault, limit: 100 });

const content = '# Hello\n\nFrom the packed SDK.\n';
steps.preview = await runtime.publishNote({ ...vault, path, content });
steps.readBeforeApply = await runtime.readNote({ ...vault, path });
steps.apply = await runtime.publishNote({ ...vault, path, content, dryRun: false });
steps.read = await runtime.readNote({ ...vault, path });
steps.listAfter = await runtime.listNotes({ ...vault, limit: 100 });

const hash = steps.read.data.contentHash;
const stale = 'sha256:' + '0'.repeat(64);
steps.staleApply = await runtime.publishNote({ ...vault, path, content: '# Stale\n', expectedHash: stale, dryRun: false });
steps.update = await runtime.publishNote({ ...vault, path, content: '# Hello again\n', expectedHash: hash, dryRun: false });

const current = await runtime.readNote({ ...vault, path });
steps.delete = await runtime.applyTransaction({ ...vault, actions: [{ type: 'delete-note', path, expectedHash: current.data.contentHash }] });
steps.trash = await runtime.listTrash(vault);
const entry = steps.trash.data.entries.find((e) => e.originalPath === path);
steps.restore = await runtime.applyTransaction({ ...vault, actions: [{ type: 'restore-note', trashId: entry.trashId, path }] });
steps.readRestored = await runtime.readNote({ ...vault, path });
steps.education = await runtime.projectEducation({ asOf: '2026-01-01T00:00:00Z' });

// The same principal with its registered key; the assertion's audience is the token endpoint at the public URL.
const key = { privateKey: JSON.parse(env.KGATE_PRIVATE_JWK), keyId: 'sdk-key-1', alg: 'ES256' };
steps.keyContext = await createHostedRuntime({ baseUrl: env.KGATE_PUBLIC_URL, clientId: env.KGATE_CLIENT_ID, credentials: key, retries: 0 }).getRuntimeContext();
steps.keyWrongAudience = await createHostedRuntime({ baseUrl: env.KGATE_URL, clientId: env.KGATE_CLIENT_ID, credentials: key, retries: 0 }).getRuntimeContext();

mkdirSync(env.LOCAL_ROOT, { recursive: true });
const local = createLocalRuntime({ root: env.LOCAL_ROOT });
const here = { workspaceId: 'local', vaultId: 'local' };
steps.local = await local.publishNote({ ...here, path: 'Local.md', content: 'local only\n', dryRun: false });
steps.localRead = await local.readNote({ ...here, path: 'Local.md' });
steps.localScopes = await local.listAvailableScopes();

process.stdout.write(JSON.stringify(steps));
`;
