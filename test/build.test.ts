import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error scripts/build.js is plain JavaScript without declarations.
import { BUNDLE, build, bundleIsStale } from '../scripts/build.js';
import { REPO_ROOT } from './support/cli.ts';

const isStale = bundleIsStale as () => boolean;

describe('the compiled bundle (scripts/build.js)', () => {
  it('is one file of plain JavaScript that loads no TypeScript loader and imports no source file', async () => {
    await (build as () => Promise<void>)();
    expect(BUNDLE).toBe(join(REPO_ROOT, 'dist', 'kgate.js'));
    const code = readFileSync(BUNDLE as string, 'utf8');
    expect(code).not.toMatch(/from ["']tsx/);
    expect(code).not.toMatch(/from ["'][^"']*\.ts["']/);
    expect(code).toContain('export {');
    expect(isStale()).toBe(false);
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
