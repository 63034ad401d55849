import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Module path (relative to src/, forward slashes) -> the relative modules it imports. */
export type ImportGraph = Map<string, string[]>;

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Reads every non-test `.ts` file under `srcDir` and records its relative imports, type-only ones included. */
export function readImportGraph(srcDir: string): ImportGraph {
  const root = resolve(srcDir);
  const graph: ImportGraph = new Map();
  for (const file of listSources(root)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((ref) => ref.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(root, resolve(dirname(file), name)).split(sep).join('/'));
    graph.set(relative(root, file).split(sep).join('/'), targets);
  }
  return graph;
}

/** The layer of a module, by its folder. */
export type Layer = 'kernel' | 'db' | 'domain' | 'surface' | 'cli' | 'app' | 'infra';

/** Classifies a module path relative to src/. */
export function layerOf(path: string): Layer {
  const top = path.split('/')[0];
  if (top === 'app') return 'app';
  if (top === 'kernel') return 'kernel';
  if (top === 'db') return 'db';
  if (top === 'domains') return 'domain';
  if (top === 'surfaces') return 'surface';
  if (top === 'cli') return 'cli';
  return 'infra'; // config.ts, logger.ts
}

function domainOf(path: string): string | undefined {
  const parts = path.split('/');
  return parts[0] === 'domains' ? parts[1] : undefined;
}

/**
 * The import rules of DESIGN.md, as messages for each violation:
 * - kernel imports nothing of ours;
 * - a domain imports kernel, `db/port.ts`, its own files and other domains' `index.ts` only;
 * - surfaces import domains (via index.ts), kernel and infra, never `db/` or the composition root `app/`;
 * - `db/` imports kernel only; infra imports kernel only;
 * - only `app/` (the composition root) and tests pick a database adapter; the CLI goes through `app/` for that.
 */
export function layerViolations(graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const layer = layerOf(from);
    for (const to of targets) {
      const target = layerOf(to);
      const edge = `${from} -> ${to}`;
      switch (layer) {
        case 'kernel':
          if (target !== 'kernel') problems.push(`kernel imports nothing of ours: ${edge}`);
          break;
        case 'domain': {
          const ownDomain = domainOf(from) === domainOf(to);
          const allowed =
            target === 'kernel' ||
            to === 'db/port.ts' ||
            (target === 'domain' && (ownDomain || to.endsWith('/index.ts')));
          if (!allowed) problems.push(`a domain imports kernel, db/port.ts and other domains' index.ts only: ${edge}`);
          break;
        }
        case 'surface': {
          const allowed =
            target === 'kernel' ||
            target === 'infra' ||
            target === 'surface' ||
            (target === 'domain' && to.endsWith('/index.ts'));
          if (!allowed) problems.push(`a surface imports domains (index.ts), kernel and infra only, never app/: ${edge}`);
          break;
        }
        case 'db':
          if (target !== 'kernel' && target !== 'db') problems.push(`db imports kernel only: ${edge}`);
          break;
        case 'infra':
          if (target !== 'kernel' && target !== 'infra') problems.push(`config and logger import kernel only: ${edge}`);
          break;
        case 'cli': {
          const allowed =
            target !== 'db' || to === 'db/port.ts' || to === 'db/data-dir-lock.ts';
          if (!allowed || target === 'surface') problems.push(`the CLI opens databases and starts the gateway through app/: ${edge}`);
          if (target === 'domain' && !to.endsWith('/index.ts')) problems.push(`the CLI imports domains via index.ts: ${edge}`);
          break;
        }
        case 'app':
          break;
      }
    }
  }
  return problems;
}

/** Every import cycle, each as the list of modules on it (Tarjan's strongly connected components). */
export function importCycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** Imports that point at files that do not exist (a typo would otherwise hide an edge from the rules). */
export function danglingImports(graph: ImportGraph): string[] {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => !graph.has(to)).map((to) => `${from} -> ${to}`),
  );
}
