import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { danglingImports, importCycles, layerViolations, readImportGraph, type ImportGraph } from './architecture/import-graph.ts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

describe('architecture of src/', () => {
  const graph = readImportGraph(SRC);

  it('reads the real source tree', () => {
    expect(graph.size).toBeGreaterThan(20);
    expect(graph.get('app/gateway.ts')).toContain('surfaces/gateway/http-app.ts');
  });

  it('follows the layer rules of DESIGN.md', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('has no imports of missing modules', () => {
    expect(danglingImports(graph)).toEqual([]);
  });
});

describe('the rule checker itself', () => {
  const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  it('fails a surface that imports db/', () => {
    const problems = layerViolations(graphOf({ 'surfaces/rest/routes.ts': ['db/postgres.ts'], 'db/postgres.ts': [] }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('surfaces/rest/routes.ts -> db/postgres.ts');
  });

  it('fails a surface that imports the composition root, and a CLI command that reaches a surface', () => {
    const problems = layerViolations(
      graphOf({ 'surfaces/rest/routes.ts': ['app/services.ts'], 'cli/serve-command.ts': ['app/gateway.ts', 'surfaces/http/listen.ts'] }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('surfaces/rest/routes.ts -> app/services.ts');
    expect(problems[1]).toContain('cli/serve-command.ts -> surfaces/http/listen.ts');
  });

  it('fails a surface that reaches into a domain past its index', () => {
    expect(layerViolations(graphOf({ 'surfaces/mcp/tools.ts': ['domains/notes/store.ts'] }))).toHaveLength(1);
  });

  it('fails a domain that imports a surface, an adapter or another domain internals', () => {
    const problems = layerViolations(
      graphOf({
        'domains/notes/service.ts': ['surfaces/http/app.ts', 'db/pglite.ts', 'domains/vaults/store.ts', 'domains/vaults/index.ts', 'db/port.ts'],
      }),
    );
    expect(problems).toHaveLength(3);
  });

  it('fails a kernel module that imports anything of ours', () => {
    expect(layerViolations(graphOf({ 'kernel/errors.ts': ['config.ts'] }))).toHaveLength(1);
  });

  it('finds cycles, including self-imports', () => {
    const cycles = importCycles(
      graphOf({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts'], 'd.ts': ['d.ts'], 'e.ts': ['a.ts'] }),
    );
    expect(cycles).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  });

  it('finds imports of missing files', () => {
    expect(danglingImports(graphOf({ 'a.ts': ['missing.ts'] }))).toEqual(['a.ts -> missing.ts']);
  });
});
