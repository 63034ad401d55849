/**
 * Failures before anything is sent, which the ledger releases: a certificate the client does not trust (TLS) and a
 * name that does not resolve (DNS). Neither reaches the server's request handler.
 */
import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../../net/guarded-fetch.ts';
import { ModelError } from '../contract.ts';
import { createOpenAiCompatibleModel } from './model.ts';
import type { ModelClientSettings } from './settings.ts';

let dir: string;
let server: Server;
let port: number;
let handled = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kgate-model-tls-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { stdio: 'ignore' },
  );
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
    handled += 1;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function settingsOf(overrides: Partial<ModelClientSettings>): ModelClientSettings {
  return {
    baseUrl: `https://127.0.0.1:${port}/v1`,
    apiKey: 'sk-test-key-never-shown-0123456789',
    chatModel: 'm',
    imageModel: null,
    prices: { inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 1, imageMicrodollars: 0 },
    timeoutMs: 5_000,
    connectTimeoutMs: 2_000,
    allowPrivateAddresses: true,
    isPublicAddress,
    limits: { backoffBaseMs: 5 },
    ...overrides,
  };
}

async function failureOf(run: () => Promise<unknown>): Promise<ModelError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

const ASK = { messages: [{ role: 'user' as const, content: 'hello' }], maxOutputTokens: 5 };

describe('failures before the request is sent', () => {
  it('an untrusted certificate is model_unavailable, not accepted, and no request reaches the server', async () => {
    const error = await failureOf(() => createOpenAiCompatibleModel(settingsOf({})).chat(ASK));
    expect([error.code, error.accepted]).toEqual(['model_unavailable', 'no']);
    expect(error.message).not.toContain('sk-test-key');
    expect(handled).toBe(0);
  });

  it('a name that does not resolve is model_unavailable, not accepted', async () => {
    const lookup = ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND models.invalid'), { code: 'ENOTFOUND' }), [])) as unknown as NonNullable<ModelClientSettings['lookup']>;
    const error = await failureOf(() => createOpenAiCompatibleModel(settingsOf({ baseUrl: 'https://models.invalid/v1', lookup })).chat(ASK));
    expect([error.code, error.accepted]).toEqual(['model_unavailable', 'no']);
    expect(error.message).toContain('ENOTFOUND');
  });
});
