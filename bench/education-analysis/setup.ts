/**
 * The installation and server of the education analysis benchmark: the demo owner of `kgate admin bootstrap` and, behind
 * it, a Product Runtime chain made through the real administration and credentials services (an organization with no
 * monthly cap, a product, the owner's installation, a service principal holding `intelligence.execute`, a client
 * secret), then the gateway as a child process.
 *
 * The server is the real `kgate serve` once its operation table serves the two analyses. Until the table is wired
 * (src/surfaces/operations/table.ts), it is `serve.ts` in a child process: the same configuration, database and
 * gateway (`startGateway`), with the analyses added to kgate's operation table. The report says which ran.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { open, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createServices } from '../../src/app/services.ts';
import { bootstrap } from '../../src/cli/bootstrap-command.ts';
import { OPERATIONS } from '../../src/surfaces/operations/table.ts';
import { openInstallation, startServer, type ServerProcess } from '../http/installation.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What the benchmark needs of the installation. */
export interface AnalysisInstallation {
  organizationId: string;
  principalId: string;
  /** The client secret (`kgcs_…`), kept in memory only. */
  clientSecret: string;
}

/** Makes the owner and the chain on the installation of `env` (a fresh data directory or a scratch database). */
export async function prepareAnalysisInstallation(env: Record<string, string>): Promise<AnalysisInstallation> {
  const opened = await openInstallation(env);
  try {
    const services = createServices(opened.db);
    const owner = await bootstrap('http://localhost:8787', services, {});
    const adminEmail = 'bench-education-admin@kgate.local';
    const orgAdmin = await services.onboarding.bootstrapOwner({ email: adminEmail });
    const { runtimeAdmin: admin, runtimeCredentials: credentials } = services;
    const suffix = randomBytes(4).toString('hex');
    const organization = await admin.createOrganization({ slug: `bench-edu-${suffix}`, name: 'Education benchmark organization', adminEmail });
    const product = await admin.createProduct(orgAdmin.accountId, organization.id, { slug: `bench-edu-product-${suffix}`, name: 'Education benchmark product', domainPack: 'education' });
    const installation = await admin.install(owner.accountId, product.slug);
    const principal = await credentials.createPrincipal(orgAdmin.accountId, installation.id, { name: 'Education benchmark backend', scopes: ['intelligence.execute'] });
    const secret = await credentials.addClientSecret(orgAdmin.accountId, principal.id);
    return { organizationId: organization.id, principalId: principal.id, clientSecret: secret.secret };
  } finally {
    await opened.close();
  }
}

/** True when `kgate serve` itself serves the analyses (the lead has wired them into the operation table). */
export function kgateServesAnalyses(): boolean {
  return OPERATIONS.some((operation) => operation.id === 'crosswalkStandards') && OPERATIONS.some((operation) => operation.id === 'recommendEducationArtifacts');
}

/** Only what Node needs plus `env`: this process's settings never leak into the child. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return { ...base, ...env, PORT: '0', KGATE_HOST: '127.0.0.1', KGATE_LOG_LEVEL: 'info' };
}

/** Starts `serve.ts` (see the module's comment) and resolves once it listens. */
async function startAnalysisServer(env: Record<string, string>, logFile: string): Promise<ServerProcess> {
  const log = await open(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ['bin/run-ts.js', 'bench/education-analysis/serve.ts'], { cwd: REPO_ROOT, env: childEnv(env), stdio: ['ignore', log.fd, log.fd] });
  } finally {
    await log.close();
  }
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const text = await readFile(logFile, 'utf8');
    const listening = text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.msg === 'kgate listening');
    if (listening && typeof listening.url === 'string') {
      return {
        url: listening.url,
        pid: child.pid!,
        logFile,
        settle: () => new Promise((resolve) => setTimeout(resolve, 500)),
        async stop() {
          if (exited) return;
          const exit = once(child, 'exit');
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
          await exit;
          clearTimeout(timer);
        },
      };
    }
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill('SIGKILL');
      throw new Error(`the analysis server did not start:\n${text.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The server the benchmark measures: `kgate serve` when it serves the analyses, else serve.ts; and which one. */
export async function startBenchServer(env: Record<string, string>, logFile: string): Promise<{ server: ServerProcess; command: string }> {
  if (kgateServesAnalyses()) return { server: await startServer(env, logFile), command: 'kgate serve' };
  return { server: await startAnalysisServer(env, logFile), command: 'bench/education-analysis/serve.ts (kgate serve\u2019s gateway with the analyses added to its operation table)' };
}

/** A fresh access token from the running server (tokens live 15 minutes: each round asks for its own). */
export async function analysisToken(url: string, installation: AnalysisInstallation): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: installation.principalId, client_secret: installation.clientSecret });
  const response = await fetch(`${url}/api/product/v1/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  const answer = (await response.json()) as { access_token?: string; error?: string };
  if (response.status !== 200 || !answer.access_token) throw new Error(`token endpoint answered ${response.status} ${answer.error ?? ''}`);
  return answer.access_token;
}
