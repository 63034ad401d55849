import { readFileSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error scripts/build.js is plain JavaScript without declarations.
import { BUNDLE, build, bundleIsStale } from '../scripts/build.js';
import { REPO_ROOT } from './support/cli.ts';

const isStale = bundleIsStale as () => boolean;

/** The chunks a built file imports, transitively: by static imports only, or by dynamic ones too. */
function chunksOf(file: string, which: 'static' | 'all'): string[] {
  const found = new Set<string>();
  const visit = (from: string) => {
    const code = readFileSync(from, 'utf8');
    const specifiers = [
      ...[...code.matchAll(/^import(?:[^;]*?from)?\s*"(\.[^"]+)"/gm)].map((m) => m[1]!),
      ...(which === 'all' ? [...code.matchAll(/import\("(\.[^"]+)"\)/g)].map((m) => m[1]!) : []),
    ];
    for (const specifier of specifiers) {
      const path = join(dirname(from), specifier);
      if (!found.has(path)) {
        found.add(path);
        visit(path);
      }
    }
  };
  visit(file);
  return [...found];
}

describe('the compiled bundle (scripts/build.js)', () => {
  it('is plain JavaScript, the entry and its chunks, that loads no TypeScript loader and imports no source file', async () => {
    await (build as () => Promise<void>)();
    expect(BUNDLE).toBe(join(REPO_ROOT, 'dist', 'kgate.js'));
    const files = [BUNDLE as string, ...chunksOf(BUNDLE as string, 'all')];
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const code = readFileSync(file, 'utf8');
      expect(code).not.toMatch(/from ["']tsx/);
      expect(code).not.toMatch(/from ["'][^"']*\.ts["']/);
    }
    expect(readFileSync(BUNDLE as string, 'utf8')).toContain('export {');
    expect(isStale()).toBe(false);
  });

  it('loads no HTTP, MCP, logging or PostgreSQL driver code before a command needs it (kgate serve loads it while its database opens)', () => {
    const eager = [BUNDLE as string, ...chunksOf(BUNDLE as string, 'static')];
    const packages = new Set(eager.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/^import[^;]*?from "([^".][^"]*)"/gm)].map((m) => m[1]!)));
    expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual(['zod']);
    // And the lazily loaded part has them: the check above is not passing for want of finding imports.
    const lazy = chunksOf(BUNDLE as string, 'all').filter((file) => !eager.includes(file));
    const lazyCode = lazy.map((file) => readFileSync(file, 'utf8')).join('\n');
    for (const name of ['hono', '@modelcontextprotocol/sdk/types.js', 'pino', 'pg']) expect(lazyCode).toContain(`from "${name}"`);
  });

  it('is stale once a source changes, and fresh again after a build', async () => {
    const source = join(REPO_ROOT, 'src', 'kernel', 'package-files.ts');
    const now = new Date();
    utimesSync(source, now, now);
    // A bundle built in the same millisecond as the touch would look fresh: wait past it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isStale()).toBe(true);
    await (build as () => Promise<void>)();
    expect(isStale()).toBe(false);
  });
});
