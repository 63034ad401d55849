/**
 * The official MCP conformance suite (tools/mcp-conformance/run-next.sh: @modelcontextprotocol/conformance
 * 0.2.0-alpha.12 on Node 22, both installed from the npm registry into a cache folder on first use) against the real
 * gateway, for the scenarios that apply to a product server, at both MCP endpoints: the hosted MCP gateway
 * (`/api/mcp`, spec 4.1) and the product-only endpoint (`/api/intelligence/mcp`, spec 4.4: the same transport, only
 * the six published-intelligence tools). Each scenario runs at the 2025-11-25 wire and, where the revision has it, at
 * the 2026-07-28 wire. The suite sends no Authorization header, so a loopback proxy adds the bearer token, keeping
 * Host and Origin as sent (the DNS-rebinding scenario depends on them); it forwards any path.
 *
 * Each scenario's checks are read from its checks.json: every check must succeed, except the ones listed in
 * NOT_APPLICABLE, which need fixture tools of the suite's reference server (docs/mcp.md, "The 2026-07-28
 * revision"); those must fail only as "not testable", so that a real failure among them is still caught.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTELLIGENCE_OPERATIONS } from '../src/surfaces/operations/intelligence-operations.ts';
import { TEST_ENGINE } from './support/database.ts';
import { createOwner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

const RUNNER = fileURLToPath(new URL('../tools/mcp-conformance/run-next.sh', import.meta.url));
const ENDPOINTS = ['/api/mcp', '/api/intelligence/mcp'];
const RUNS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['2025-11-25', ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'dns-rebinding-protection']],
  ['2026-07-28', ['server-stateless', 'tools-list', 'tools-call-error', 'dns-rebinding-protection', 'caching', 'http-header-validation']],
];
const CASES = RUNS.flatMap(([version, scenarios]) => ENDPOINTS.flatMap((endpoint) => scenarios.map((scenario) => [version, endpoint, scenario] as const)));

/**
 * Checks that do not apply to a product server (docs/mcp.md, "The 2026-07-28 revision"), by scenario and check id,
 * with the only failure accepted for each: a fixture tool of the reference server that kgate does not have, or a
 * list of a capability kgate does not declare (answered -32601, as server-stateless requires of such a server).
 */
const NOT_APPLICABLE: Record<string, Record<string, RegExp>> = {
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': /test_missing_capability/,
    'sep-2575-missing-capability-http-400': /^Not testable: .*test_missing_capability/,
    'sep-2575-http-server-no-independent-requests-on-stream': /^Not testable: .*test_streaming_elicitation/,
    'sep-2575-server-no-log-without-loglevel': /^Not testable: .*test_logging_tool/,
  },
  caching: {
    'sep-2549-prompts-list-caching-hints': /^prompts\/list returned JSON-RPC error -32601/,
    'sep-2549-resources-list-caching-hints': /^resources\/list returned JSON-RPC error -32601/,
    'sep-2549-resources-templates-list-caching-hints': /^resources\/templates\/list returned JSON-RPC error -32601/,
  },
};

/** What a check may end as: passed, skipped by the suite itself, or informational (no requirement). */
const PASSING = new Set(['SUCCESS', 'SKIPPED', 'INFO']);

interface Check {
  id: string;
  name: string;
  status: string;
  errorMessage?: string;
}

function bearerProxy(upstream: string, token: string): Promise<http.Server> {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function checksUnder(folder: string): Promise<Check[]> {
  const checks: Check[] = [];
  for (const entry of await readdir(folder, { recursive: true })) {
    if (entry.endsWith('checks.json')) checks.push(...(JSON.parse(await readFile(join(folder, entry), 'utf8')) as Check[]));
  }
  return checks;
}

// The protocol layer does not touch the database engine: one engine is enough.
describe.runIf(TEST_ENGINE === 'pglite')('MCP conformance suite', () => {
  let gateway: TestGateway;
  let proxy: http.Server;
  let out: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    const owner = await createOwner(gateway.services);
    proxy = await bearerProxy(gateway.url, owner.token);
    out = await mkdtemp(join(tmpdir(), 'kgate-conformance-'));
  });
  afterAll(async () => {
    proxy?.close();
    await gateway?.stop();
    if (out) await rm(out, { recursive: true, force: true });
  });

  // What makes the second run a run of the product-only endpoint: through the same proxy, it lists the six tools only.
  it('reaches the product-only endpoint through the proxy, which lists only the six published-intelligence tools', async () => {
    const response = await fetch(`http://localhost:${(proxy.address() as AddressInfo).port}/api/intelligence/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { tools: Array<{ name: string }> } };
    expect(result.tools.map((tool) => tool.name)).toEqual(INTELLIGENCE_OPERATIONS.map((operation) => operation.mcp!.name));
  });

  it.each(CASES)('at %s, %s passes %s', async (version, endpoint, scenario) => {
    const url = `http://localhost:${(proxy.address() as AddressInfo).port}${endpoint}`;
    const folder = await mkdtemp(join(out, `${scenario}-`));
    const args = [RUNNER, 'server', '--url', url, '--scenario', scenario, '--spec-version', version, '-o', folder];
    // The first run installs the suite and Node 22 from the npm registry: allow it minutes.
    const output = await new Promise<string>((resolve) => {
      execFile('bash', args, { timeout: 540_000 }, (_error, stdout, stderr) => resolve(`${stdout}${stderr}`));
    });
    const checks = await checksUnder(folder);
    expect(checks.length, output).toBeGreaterThan(0);
    const allowed = NOT_APPLICABLE[scenario] ?? {};
    const excused = (check: Check) => check.status === 'FAILURE' && allowed[check.id]?.test(check.errorMessage ?? '') === true;
    const failed = checks.filter((check) => !PASSING.has(check.status) && !excused(check));
    expect(failed.map((check) => `${check.id} ${check.status}: ${check.errorMessage ?? ''}`)).toEqual([]);
    // The checks that do not apply still ran, and failed only for the reason that makes them not apply.
    for (const id of Object.keys(allowed)) expect(checks.some((check) => check.id === id)).toBe(true);
  }, 600_000);
});
