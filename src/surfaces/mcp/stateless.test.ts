import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { speaksStateless } from './stateless.ts';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const withMeta = (version: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': version } } });
const plain = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: 1 } } };

describe('which wire a POST speaks', () => {
  it('is the 2026-07-28 wire when the header names it, whatever the body', () => {
    expect(speaksStateless(request({ 'mcp-protocol-version': '2026-07-28' }), [plain], false)).toBe(true);
    expect(speaksStateless(request({ 'mcp-protocol-version': ' 2026-07-28 ' }), [plain], true)).toBe(true);
  });

  it('is the new wire for a request whose _meta names a version while the header names no older revision', () => {
    expect(speaksStateless(request({}), [withMeta('2026-07-28')], false)).toBe(true);
    expect(speaksStateless(request({ 'mcp-protocol-version': 'v999.0.0' }), [withMeta('v999.0.0')], false)).toBe(true);
  });

  it('stays on the older wire for an older header, a batch, or a body without that _meta key', () => {
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']) {
      expect(speaksStateless(request({ 'mcp-protocol-version': version }), [withMeta('2026-07-28')], false)).toBe(false);
    }
    expect(speaksStateless(request({}), [withMeta('2026-07-28')], true)).toBe(false);
    expect(speaksStateless(request({}), [plain], false)).toBe(false);
    expect(speaksStateless(request({ 'mcp-protocol-version': 'v999.0.0' }), [plain], false)).toBe(false);
    expect(speaksStateless(request({}), ['not an object', null], false)).toBe(false);
  });
});
