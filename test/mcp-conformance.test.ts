/**
 * The official MCP conformance suite (../shared/tools/mcp-conformance) against the real gateway, for the scenarios
 * that apply to a product server, at both MCP endpoints: the hosted MCP gateway (`/api/mcp`, spec 4.1) and the
 * product-only endpoint (`/api/intelligence/mcp`, spec 4.4: the same transport, only the six published-intelligence
 * tools). The suite sends no Authorization header, so a loopback proxy adds the bearer token, keeping Host and Origin
 * as sent (the DNS-rebinding scenario depends on them); it forwards any path.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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

const RUNNER = fileURLToPath(new URL('../../shared/tools/mcp-conformance/run.sh', import.meta.url));
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'dns-rebinding-protection'];
const ENDPOINTS = ['/api/mcp', '/api/intelligence/mcp'];
const CASES = ENDPOINTS.flatMap((endpoint) => SCENARIOS.map((scenario) => [endpoint, scenario] as const));

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

// The protocol layer does not touch the database engine: one engine is enough. The runner lives in ../shared.
describe.runIf(TEST_ENGINE === 'pglite' && existsSync(RUNNER))('MCP conformance suite', () => {
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

  it.each(CASES)('%s passes %s', async (endpoint, scenario) => {
    const url = `http://localhost:${(proxy.address() as AddressInfo).port}${endpoint}`;
    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile('bash', [RUNNER, 'server', '--url', url, '--scenario', scenario, '-o', out], { timeout: 240_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
    expect(result.output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
    expect(result.code).toBe(0);
  }, 300_000);
});
