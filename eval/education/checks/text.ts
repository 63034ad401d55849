/** Reading an envelope's data as the checks need it: every string with its path, and values under named keys. */

/** One string of the data and where it is (`items.0.stem`). */
export interface PlacedText {
  path: string;
  text: string;
}

/** Every string in `value`, depth first, with its dotted path (array indices as numbers). */
export function stringsOf(value: unknown, path = ''): PlacedText[] {
  const out: PlacedText[] = [];
  const visit = (node: unknown, at: string, depth: number): void => {
    if (depth > 32) return;
    if (typeof node === 'string') out.push({ path: at, text: node });
    else if (Array.isArray(node)) node.forEach((item, index) => visit(item, at === '' ? String(index) : `${at}.${index}`, depth + 1));
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) visit(child, at === '' ? key : `${at}.${key}`, depth + 1);
    }
  };
  visit(value, path, 0);
  return out;
}

/** The values found under any key `matches` accepts, at any depth (not looking inside a matched value again). */
export function valuesUnder(value: unknown, matches: (key: string) => boolean): Array<{ path: string; value: unknown }> {
  const out: Array<{ path: string; value: unknown }> = [];
  const visit = (node: unknown, at: string, depth: number): void => {
    if (depth > 32 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, `${at}.${index}`, depth + 1));
      return;
    }
    for (const [key, child] of Object.entries(node)) {
      const here = at === '' ? key : `${at}.${key}`;
      if (matches(key)) out.push({ path: here, value: child });
      else visit(child, here, depth + 1);
    }
  };
  visit(value, '', 0);
  return out;
}

/**
 * The identifiers a citation value names: a string, an array of strings, or objects carrying `code`, `id`,
 * `sourceId` or `standard` (and arrays of those).
 */
export function referencesIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of ['code', 'id', 'sourceId', 'standard', 'ref']) if (typeof record[key] === 'string') return [record[key]];
  }
  return [];
}

/** The strings at `paths` (dotted, `*` for every array item or object value), or undefined when none exist. */
export function stringsAt(value: unknown, paths: readonly string[]): PlacedText[] {
  const out: PlacedText[] = [];
  for (const path of paths) {
    let nodes: Array<{ at: string; node: unknown }> = [{ at: '', node: value }];
    for (const segment of path.split('.')) {
      nodes = nodes.flatMap(({ at, node }) => {
        if (node === null || typeof node !== 'object') return [];
        const entries = Object.entries(node as Record<string, unknown>);
        const picked = segment === '*' ? entries : entries.filter(([key]) => key === segment);
        return picked.map(([key, child]) => ({ at: at === '' ? key : `${at}.${key}`, node: child }));
      });
    }
    for (const { at, node } of nodes) out.push(...stringsOf(node, at));
  }
  return out;
}

/** Words in a text (runs of letters or digits). */
export function wordCount(text: string): number {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).length;
}

/** The request's list under `key` as identifiers (`standards: [{ code }]`, `sources: [{ id }]`, or strings). */
export function requestRefs(request: Record<string, unknown>, keys: readonly string[]): string[] {
  const out: string[] = [];
  for (const key of keys) {
    const value = request[key];
    if (value === undefined) continue;
    out.push(...referencesIn(Array.isArray(value) ? value : [value]));
  }
  return [...new Set(out)];
}
