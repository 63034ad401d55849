import { describe, expect, it } from 'vitest';
import { requestFingerprint } from './fingerprint.ts';

describe('request fingerprints', () => {
  it('ignore key order and undefined fields, and differ for different requests or operations', () => {
    const a = requestFingerprint('writeNote', { path: 'a.md', content: 'x', dryRun: false, expectedHash: undefined });
    const b = requestFingerprint('writeNote', { dryRun: false, content: 'x', path: 'a.md' });
    expect(a).toBe(b);
    expect(requestFingerprint('writeNote', { path: 'a.md', content: 'y', dryRun: false })).not.toBe(a);
    expect(requestFingerprint('deleteNote', { path: 'a.md', content: 'x', dryRun: false })).not.toBe(a);
  });

  it('sort nested objects too, but keep array order', () => {
    const nested = requestFingerprint('tx', { actions: [{ type: 'write-note', path: 'a.md' }, { path: 'b.md', type: 'delete-note' }] });
    expect(requestFingerprint('tx', { actions: [{ path: 'a.md', type: 'write-note' }, { type: 'delete-note', path: 'b.md' }] })).toBe(nested);
    expect(requestFingerprint('tx', { actions: [{ path: 'b.md', type: 'delete-note' }, { type: 'write-note', path: 'a.md' }] })).not.toBe(nested);
  });
});
