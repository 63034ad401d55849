/**
 * Workspace pages: the real `kgate serve` answering a signed-in person's pages under load, beside hello-world of
 * the same server (measured just before and just after each row), on PGlite and PostgreSQL:
 * - a rendered note: `Projects/Offline Sync.md` of the demo vault (1.8 KB, frontmatter, WikiLinks, backlinks), as
 *   the note page renders it (read, relations, Markdown to sanitized HTML);
 * - a vault listing: a folder of 1,000 notes (the vault's notes read in pages of 1,000, grouped by folder).
 * Every answer is checked (the note's rendered text, the listing's last note), and the session comes from the real
 * sign-in form, as a browser gets it.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { bootstrapInstallation, openInstallation, startServer, type EngineName } from './http/installation.ts';
import { measureScenario, standardLoad, type LoadOptions, type LoadScenario, type Measurement } from './http/load.ts';
import { READ_NOTE_PATH } from './http/scenarios.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count, fixed } from './support/format.ts';
import { measureOnServedEngines } from './support/served-engines.ts';
import { createServices } from '../src/app/services.ts';

/** Notes in the listed folder. */
const LISTED_NOTES = 1000;
const LISTED_FOLDER = 'Listing';
const PASSWORD = 'a long benchmark password';

type Key = 'hello' | 'note' | 'listing';

const ROUTE_NAMES: Record<Key, string> = {
  hello: 'hello-world: `GET /healthz`',
  note: 'a rendered note: `GET /workspace/vaults/{id}/notes/Projects/Offline Sync.md`',
  listing: `a vault listing of ${count(LISTED_NOTES)} notes: \`GET /workspace/vaults/{id}?folder=${LISTED_FOLDER}\``,
};

interface EngineRun {
  engine: EngineName;
  rows: Array<Measurement<Key> & { pairedHelloRps?: number }>;
  listedBytes: number;
  noteBytes: number;
}

/** Signs in through the real form (its CSRF cookie and field), as a browser does; returns the session cookie. */
async function signIn(baseUrl: string, email: string): Promise<string> {
  const form = await fetch(`${baseUrl}/signin`);
  const csrfCookie = form.headers.getSetCookie().find((line) => line.startsWith('kgate_signin='))!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const answer = await fetch(`${baseUrl}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
    body: new URLSearchParams({ csrf, email, password: PASSWORD }).toString(),
  });
  const session = answer.headers.getSetCookie().find((line) => line.startsWith('kgate_session='));
  if (answer.status !== 303 || !session) throw new Error(`sign-in failed: ${answer.status}`);
  return session.split(';')[0]!;
}

/** Writes the listed folder's notes through the REST API, 100 per transaction. */
async function seedListing(baseUrl: string, token: string, mappingId: string): Promise<void> {
  for (let start = 0; start < LISTED_NOTES; start += 100) {
    const actions = Array.from({ length: 100 }, (_, k) => {
      const n = String(start + k + 1).padStart(4, '0');
      return { type: 'write-note', path: `${LISTED_FOLDER}/Note ${n}.md`, content: `# Note ${n}\n\nListed note number ${n}.\n` };
    });
    const response = await fetch(`${baseUrl}/api/dev/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') },
      body: JSON.stringify({ mappingId, dryRun: false, actions }),
    });
    if (response.status !== 200) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
  }
}

async function runEngine(engine: EngineName, env: Record<string, string>, root: string, load: LoadOptions, failures: string[]): Promise<EngineRun> {
  const boot = await bootstrapInstallation(env, { password: PASSWORD });
  const opened = await openInstallation(env);
  let email: string;
  try {
    const services = createServices(opened.db);
    email = (await services.accounts.getAccount(boot.accountId)).email;
    const limit = 1_000_000_000;
    await services.accounts.setAllowanceOverrides(boot.accountId, { restOperationsPerMinute: limit, restOperationsPerMonth: limit });
  } finally {
    await opened.close();
  }
  const server = await startServer(env, join(root, `${engine}-serve.log`));
  try {
    await seedListing(server.url, boot.token, boot.mappingId);
    const cookie = await signIn(server.url, email);
    const page = (path: string) => ({ path, headers: { cookie, accept: 'text/html' } });
    const notePath = `/workspace/vaults/${boot.mappingId}/notes/${READ_NOTE_PATH.split('/').map(encodeURIComponent).join('/')}`;
    const listingPath = `/workspace/vaults/${boot.mappingId}?folder=${LISTED_FOLDER}`;
    const lastNote = `Note ${String(LISTED_NOTES).padStart(4, '0')}`;
    const scenarios: Record<Key, LoadScenario<Key>> = {
      hello: { key: 'hello', label: ROUTE_NAMES.hello, options: { path: '/healthz' }, verify: (body) => body.startsWith('{"status":"ok"') },
      note: { key: 'note', label: ROUTE_NAMES.note, options: page(notePath), verify: (body) => body.includes('<article class="note">') && body.includes('Backlinks') },
      listing: { key: 'listing', label: ROUTE_NAMES.listing, options: page(listingPath), verify: (body) => body.includes(`>${lastNote}</a>`) },
    };
    const bytes = async (path: string) => Buffer.byteLength(await (await fetch(`${server.url}${path}`, { headers: { cookie } })).text());
    const noteBytes = await bytes(notePath);
    const listedBytes = await bytes(listingPath);
    const measure = async (key: Key) => {
      const m = await measureScenario(server.url, scenarios[key], load, server);
      if (m.errors > 0 || m.non2xx > 0 || m.mismatches > 0) {
        failures.push(`${engine} ${key}: ${m.errors} errors, ${m.non2xx} non-2xx ${JSON.stringify(m.otherStatuses)}, ${m.mismatches} wrong bodies`);
      }
      process.stderr.write(`  ${engine} ${key}: ${Math.round(m.requestsPerSecond)} req/s, p99 ${m.p99Ms} ms\n`);
      return m;
    };
    // Hello-world before and after each page row: H N H L H.
    const h1 = await measure('hello');
    const note = await measure('note');
    const h2 = await measure('hello');
    const listing = await measure('listing');
    const h3 = await measure('hello');
    return {
      engine,
      rows: [
        h1,
        { ...note, pairedHelloRps: (h1.requestsPerSecond + h2.requestsPerSecond) / 2 },
        { ...listing, pairedHelloRps: (h2.requestsPerSecond + h3.requestsPerSecond) / 2 },
      ],
      listedBytes,
      noteBytes,
    };
  } finally {
    await server.stop();
  }
}

function report(runs: EngineRun[], load: LoadOptions, skipped: string[], failures: string[]): BenchmarkReport {
  const table = ['| Page | Database | Requests/s | p50 (ms) | p99 (ms) | Errors / non-2xx | Requests/s vs hello-world |', '|---|---|--:|--:|--:|--:|--:|'];
  for (const run of runs) {
    for (const row of run.rows) {
      const share = row.pairedHelloRps ? `${fixed((100 * row.requestsPerSecond) / row.pairedHelloRps, 1)}% (of ${count(Math.round(row.pairedHelloRps))})` : 'baseline';
      table.push(
        `| ${ROUTE_NAMES[row.key]} | ${run.engine} | ${count(Math.round(row.requestsPerSecond))} | ${fixed(row.p50Ms, 1)} | ${fixed(row.p99Ms, 1)} | ${row.errors} / ${row.non2xx} | ${share} |`,
      );
    }
  }
  const details = [
    `- Server: the real \`kgate serve\` (PORT=0, 127.0.0.1, request log at info to a file) on an installation made with \`kgate admin bootstrap\`; ${count(LISTED_NOTES)} ` +
      `notes written into \`${LISTED_FOLDER}/\` through \`POST /api/dev/transactions\`; the session from the real sign-in form.`,
    `- Load: autocannon, ${load.connections} connections, ${load.warmupSeconds} s warm-up, ${load.seconds} s measured per row; hello-world measured before and after each page row, ` +
      'and each page compared with the mean of the two. Every body is checked.',
    ...runs.map((run) => `- ${run.engine}: the note page is ${count(run.noteBytes)} bytes of HTML, the listing ${count(run.listedBytes)} bytes.`),
    ...skipped.map((reason) => `- PostgreSQL skipped: ${reason}.`),
    '',
    'Pages are a person\'s, not an agent\'s: nothing here is cached between requests. A note page runs the read, the relations (outgoing ' +
      'links resolved and incoming links found) and the Markdown rendering with the sanitizer on every request; a listing reads every note ' +
      'of the vault in pages of 1,000 before grouping the folder (docs/workspace.md, "Limits").',
  ];
  return { table, details, failures };
}

/** Measures the workspace pages on both engines. */
export async function measureWorkspacePages(load: LoadOptions): Promise<BenchmarkReport> {
  const failures: string[] = [];
  const { runs, skipped } = await measureOnServedEngines('pages', ({ engine, env, root }) => runEngine(engine, env, root, load, failures));
  return report(runs, load, skipped.map((skip) => skip.reason), failures);
}

/** The workspace pages benchmark as `bench/run.ts` runs it. */
export const workspacePages: Benchmark = {
  title: 'Workspace pages',
  run: (options: BenchmarkOptions) => measureWorkspacePages(standardLoad(options.duration)),
};
