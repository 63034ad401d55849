import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicBaseUrl } from './config.ts';

describe('loadConfig', () => {
  it('has working defaults: port 8787, embedded database in ./data, base URL from the port', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8787);
    expect(config.baseUrl).toBe('http://localhost:8787');
    expect(config.database).toEqual({ kind: 'pglite', dataDir: './data' });
  });

  it('derives the base URL from PORT and trims a trailing slash from KGATE_BASE_URL', () => {
    expect(loadConfig({ PORT: '9000' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ KGATE_BASE_URL: 'https://kg.example.com/' }).baseUrl).toBe('https://kg.example.com');
  });

  it('with PORT=0 the base URL comes from the bound address unless configured', () => {
    const config = loadConfig({ PORT: '0' });
    expect(config.baseUrl).toBeUndefined();
    expect(publicBaseUrl(config, 'http://127.0.0.1:43121')).toBe('http://localhost:43121');
    expect(publicBaseUrl(loadConfig({ PORT: '0', KGATE_BASE_URL: 'https://kg.example' }), 'http://127.0.0.1:1')).toBe(
      'https://kg.example',
    );
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
      poolSize: 10,
    });
  });

  it('leaves the HTTP server limits to their defaults unless the operator sets them', () => {
    expect(loadConfig({}).http).toEqual({ keepAliveTimeoutMs: undefined, maxConnections: undefined });
    expect(loadConfig({ KGATE_KEEP_ALIVE_TIMEOUT_MS: '620000', KGATE_MAX_CONNECTIONS: '2500' }).http).toEqual({
      keepAliveTimeoutMs: 620_000,
      maxConnections: 2500,
    });
  });

  it('serves no metrics unless KGATE_METRICS_PORT is set, and then on 127.0.0.1 unless told otherwise', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ KGATE_METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ KGATE_METRICS_PORT: '0', KGATE_METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 0 });
  });

  it('keeps 32 MiB of note bodies in memory unless KGATE_NOTE_CACHE_MB says otherwise (0: none)', () => {
    expect(loadConfig({}).noteCacheBytes).toBe(32 * 1024 * 1024);
    expect(loadConfig({ KGATE_NOTE_CACHE_MB: '0' }).noteCacheBytes).toBe(0);
    expect(loadConfig({ KGATE_NOTE_CACHE_MB: '256' }).noteCacheBytes).toBe(256 * 1024 * 1024);
  });

  it("lets one vault's canvases and attachments take 1 GiB unless KGATE_VAULT_FILES_MB says otherwise (0: none)", () => {
    expect(loadConfig({}).vaultFileBytes).toBe(1024 * 1024 * 1024);
    expect(loadConfig({ KGATE_VAULT_FILES_MB: '0' }).vaultFileBytes).toBe(0);
    expect(loadConfig({ KGATE_VAULT_FILES_MB: '20480' }).vaultFileBytes).toBe(20480 * 1024 * 1024);
    for (const bad of ['-1', '1.5', 'lots', '2000000']) expect(() => loadConfig({ KGATE_VAULT_FILES_MB: bad }), bad).toThrow(/KGATE_VAULT_FILES_MB/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).port).toBe(8787);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ KGATE_BASE_URL: 'not a url' }, 'KGATE_BASE_URL'],
    [{ KGATE_BASE_URL: 'ftp://example.com' }, 'KGATE_BASE_URL'],
    [{ KGATE_BASE_URL: 'https://example.com/?x=1' }, 'KGATE_BASE_URL'],
    [{ KGATE_LOG_LEVEL: 'loud' }, 'KGATE_LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://u:pw@h/db' }, 'DATABASE_URL'],
    [{ KGATE_KEEP_ALIVE_TIMEOUT_MS: 'soon' }, 'KGATE_KEEP_ALIVE_TIMEOUT_MS'],
    [{ KGATE_KEEP_ALIVE_TIMEOUT_MS: '0' }, 'KGATE_KEEP_ALIVE_TIMEOUT_MS'],
    [{ KGATE_KEEP_ALIVE_TIMEOUT_MS: '65000.5' }, 'KGATE_KEEP_ALIVE_TIMEOUT_MS'],
    [{ KGATE_KEEP_ALIVE_TIMEOUT_MS: '3600001' }, 'KGATE_KEEP_ALIVE_TIMEOUT_MS'],
    [{ KGATE_MAX_CONNECTIONS: '0' }, 'KGATE_MAX_CONNECTIONS'],
    [{ KGATE_MAX_CONNECTIONS: '-5' }, 'KGATE_MAX_CONNECTIONS'],
    [{ KGATE_MAX_CONNECTIONS: 'many' }, 'KGATE_MAX_CONNECTIONS'],
    [{ KGATE_METRICS_PORT: '70000' }, 'KGATE_METRICS_PORT'],
    [{ KGATE_METRICS_PORT: 'ninety' }, 'KGATE_METRICS_PORT'],
    [{ KGATE_NOTE_CACHE_MB: '-1' }, 'KGATE_NOTE_CACHE_MB'],
    [{ KGATE_NOTE_CACHE_MB: '1.5' }, 'KGATE_NOTE_CACHE_MB'],
  ])('names the variable in the error for %j', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('never echoes a database URL, which may hold a password', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@h/db' })).toThrow(/^(?![\s\S]*hunter2)/);
  });

  it('reports every invalid variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', KGATE_LOG_LEVEL: 'y' })).toThrow(/PORT[\s\S]*KGATE_LOG_LEVEL/);
  });
});
