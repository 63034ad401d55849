import { sha256Hex } from '../../kernel/hashing.ts';

/** JSON with object keys sorted and undefined members left out, so that equal requests hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The fingerprint of a request: SHA-256 of the operation id and its validated input. Key order and absent optional
 * fields do not make another request; any other difference does.
 */
export function requestFingerprint(operation: string, input: unknown): string {
  return sha256Hex(canonicalJson({ operationId: operation, input }));
}
