/**
 * The installation the published intelligence benchmark serves, made from this process before the gateway starts
 * (PGlite allows one process per data directory), through the real services as an operator, an organization admin
 * and a customer make it: the benchmark account (an owner with a personal access token and an empty hosted vault,
 * its MCP allowances raised to 10^9 so that no call is refused with `rate_limited`; every call still reserves its
 * unit), the synthetic vault imported into that vault (what `kgate import` runs), an organization with a second
 * account as its admin, the product `bench` and the benchmark account's installation of it; and the generated pack
 * read and validated (`loadPack`, what `kgate packs publish` does first), timed. The pack is published afterwards,
 * with the command, beside the running gateway (measure.ts).
 */
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createServices } from '../../src/app/services.ts';
import { importFolder } from '../../src/cli/import-folder.ts';
import { loadPack } from '../../src/domains/packs/index.ts';
import type { Actor } from '../../src/kernel/principal.ts';
import { openInstallation } from '../http/installation.ts';
import { count } from '../support/format.ts';
import { describePglite } from '../support/pglite-version.ts';

/** The product slug the generated pack names. */
export const BENCH_PRODUCT = 'bench';

/** What the benchmark needs of the installation, and how long the one-off steps took. */
export interface PackInstallation {
  /** The PGlite package and engine, as describePglite answers (used for the PGlite row). */
  pglite: string;
  accountId: string;
  /** The benchmark account's personal access token, kept in memory only. */
  token: string;
  mappingId: string;
  /** Notes imported, and the wall time of the import. */
  notes: number;
  importMs: number;
  /** Reading and validating the pack folder in this process (`loadPack`). */
  loadMs: number;
  /** The longest the event loop waited during `loadPack`: its longest synchronous stretch, which a gateway running it cannot serve through. */
  loadLongestBlockMs: number;
  failures: string[];
}

/** Makes the installation of `env` (a fresh data directory or a scratch database), imports `vault` and publishes `packDir`. */
export async function preparePackInstallation(env: Record<string, string>, packDir: string, vault: string, expectedNotes: number): Promise<PackInstallation> {
  const opened = await openInstallation(env);
  const failures: string[] = [];
  try {
    const services = createServices(opened.db);
    const owner = await services.onboarding.bootstrapOwner({ email: 'bench-intelligence@kgate.local' });
    const limit = 1_000_000_000;
    await services.accounts.setAllowanceOverrides(owner.accountId, {
      restOperationsPerMinute: limit,
      restOperationsPerMonth: limit,
      mcpOperationsPerMinute: limit,
      mcpOperationsPerMonth: limit,
    });
    const actor: Actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'kgate-bench' };
    const importing = performance.now();
    const report = await importFolder(services.notes, actor, owner.mapping.id, vault);
    const importMs = performance.now() - importing;
    if (report.created !== expectedNotes || report.rejected.length > 0) {
      failures.push(`import: ${count(report.created)} created and ${count(report.rejected.length)} rejected, expected ${count(expectedNotes)} created`);
    }

    const adminEmail = 'bench-intelligence-admin@kgate.local';
    const orgAdmin = await services.onboarding.bootstrapOwner({ email: adminEmail });
    const organization = await services.runtimeAdmin.createOrganization({ slug: `bench-org-${randomBytes(4).toString('hex')}`, name: 'Benchmark publisher', adminEmail });
    await services.runtimeAdmin.createProduct(orgAdmin.accountId, organization.id, { slug: BENCH_PRODUCT, name: 'Benchmark product', domainPack: 'education' });
    await services.runtimeAdmin.install(owner.accountId, BENCH_PRODUCT);

    // Reading and validating the folder alone, as `kgate packs publish` does first (the publication is timed through
    // the command itself, beside the running gateway: measure.ts).
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const loading = performance.now();
    const loaded = await loadPack(packDir);
    const loadMs = performance.now() - loading;
    delay.disable();
    if (!loaded.ok) throw new Error(`the generated pack has ${loaded.problems.length} problems, e.g. ${JSON.stringify(loaded.problems[0])}`);
    return {
      pglite: await describePglite(opened.db),
      accountId: owner.accountId,
      token: owner.token,
      mappingId: owner.mapping.id,
      notes: report.created,
      importMs,
      loadMs,
      loadLongestBlockMs: delay.max / 1e6,
      failures,
    };
  } finally {
    await opened.close();
  }
}
