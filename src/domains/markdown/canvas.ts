import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';

/** Most nodes one canvas may hold (spec: bounded spatial nodes). */
export const MAX_CANVAS_NODES = 500;
/** Most edges one canvas may hold (bounded like the nodes). */
export const MAX_CANVAS_EDGES = 2000;

const Id = z.string().min(1, 'must be a non-empty string');
const Geometry = { id: Id, x: z.number(), y: z.number(), width: z.number().min(0), height: z.number().min(0) };

const CanvasNode = z.discriminatedUnion('type', [
  z.object({ ...Geometry, type: z.literal('text'), text: z.string() }),
  z.object({ ...Geometry, type: z.literal('file'), file: z.string().min(1), subpath: z.string().optional() }),
  z.object({ ...Geometry, type: z.literal('link'), url: z.string().min(1) }),
  z.object({ ...Geometry, type: z.literal('group'), label: z.string().optional() }),
]);
const Side = z.enum(['top', 'right', 'bottom', 'left']);
const End = z.enum(['none', 'arrow']);
const CanvasEdge = z.object({
  id: Id,
  fromNode: Id,
  toNode: Id,
  fromSide: Side.optional(),
  toSide: Side.optional(),
  fromEnd: End.optional(),
  toEnd: End.optional(),
  label: z.string().optional(),
});
const Canvas = z.object({ nodes: z.array(CanvasNode).default([]), edges: z.array(CanvasEdge).default([]) });

type CanvasNode = z.output<typeof CanvasNode>;
type CanvasEdge = z.output<typeof CanvasEdge>;

/** A canvas as an outline: groups nest their contents, in reading order, followed by the relations. */
export interface CanvasOutline {
  outline: string;
  nodes: number;
  edges: number;
  truncated: false;
}

const invalid = (message: string, details?: Record<string, unknown>) => new KgateError('invalid_request', message, details);

function parseInput(canvasJson: unknown): unknown {
  if (typeof canvasJson !== 'string') return canvasJson;
  try {
    return JSON.parse(canvasJson) as unknown;
  } catch {
    throw invalid('The canvas is not valid JSON.');
  }
}

function validate(canvasJson: unknown): z.output<typeof Canvas> {
  const value = parseInput(canvasJson);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('A canvas is a JSON object with "nodes" and "edges" arrays (JSON Canvas 1.0).');
  }
  // Count before validating every node: an oversized canvas is refused without further work.
  const { nodes, edges } = value as { nodes?: unknown; edges?: unknown };
  if (Array.isArray(nodes) && nodes.length > MAX_CANVAS_NODES) {
    throw invalid(`A canvas holds at most ${MAX_CANVAS_NODES} nodes; this one has ${nodes.length}.`, { limit: MAX_CANVAS_NODES, nodes: nodes.length });
  }
  if (Array.isArray(edges) && edges.length > MAX_CANVAS_EDGES) {
    throw invalid(`A canvas holds at most ${MAX_CANVAS_EDGES} edges; this one has ${edges.length}.`, { limit: MAX_CANVAS_EDGES, edges: edges.length });
  }
  const parsed = Canvas.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${formatPath(i.path)}: ${i.message}`);
    throw invalid(`The canvas is not valid JSON Canvas 1.0: ${issues.join('; ')}${parsed.error.issues.length > 5 ? '; ...' : ''}`);
  }
  const ids = new Set<string>();
  for (const node of parsed.data.nodes) {
    if (ids.has(node.id)) throw invalid(`The canvas has two nodes with the id "${node.id}".`);
    ids.add(node.id);
  }
  for (const edge of parsed.data.edges) {
    for (const end of [edge.fromNode, edge.toNode]) {
      if (!ids.has(end)) throw invalid(`Edge "${edge.id}" refers to the node "${end}", which the canvas does not have.`);
    }
  }
  return parsed.data;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(canvas)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

const area = (n: CanvasNode) => n.width * n.height;
const contains = (outer: CanvasNode, inner: CanvasNode) =>
  outer.x <= inner.x && outer.y <= inner.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;

/**
 * The parent of each node: the smallest group whose rectangle contains the node's rectangle. A group can only
 * sit in a larger group (or, for identical rectangles, one listed earlier), so parents never form a cycle.
 */
function parents(nodes: readonly CanvasNode[]): Map<string, string | null> {
  const groups = nodes.map((node, index) => ({ node, index })).filter((g) => g.node.type === 'group');
  const result = new Map<string, string | null>();
  nodes.forEach((node, index) => {
    let best: { node: CanvasNode; index: number } | null = null;
    for (const group of groups) {
      if (group.index === index || !contains(group.node, node)) continue;
      if (node.type === 'group' && !(area(group.node) > area(node) || (area(group.node) === area(node) && group.index < index))) continue;
      // Smallest wins; between equal areas the later one is the inner one.
      if (!best || area(group.node) < area(best.node) || (area(group.node) === area(best.node) && group.index > best.index)) best = group;
    }
    result.set(node.id, best ? best.node.id : null);
  });
  return result;
}

const byReadingOrder = (a: CanvasNode, b: CanvasNode) => a.y - b.y || a.x - b.x || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function fileTarget(node: Extract<CanvasNode, { type: 'file' }>): string {
  const isNote = /\.md$/i.test(node.file);
  const path = isNote ? node.file.slice(0, -3) : node.file;
  const subpath = node.subpath ? (node.subpath.startsWith('#') ? node.subpath : `#${node.subpath}`) : '';
  return `${path}${subpath}`;
}

function markdownLink(url: string): string {
  const text = url.replace(/([[\]\\])/g, '\\$1');
  const target = /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, encodeURIComponent)}>` : url;
  return `[${text}](${target})`;
}

function textLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function shorten(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The lines a node contributes to the outline: the first is the bullet, the rest continue it. */
function nodeLines(node: CanvasNode): string[] {
  switch (node.type) {
    case 'group':
      return [node.label?.trim() ? `**${node.label.trim()}**` : '*(group)*'];
    case 'file':
      return [/\.md$/i.test(node.file) ? `[[${fileTarget(node)}]]` : `![[${fileTarget(node)}]]`];
    case 'link':
      return [markdownLink(node.url)];
    case 'text': {
      const lines = textLines(node.text);
      return lines.length > 0 ? lines : ['*(empty text)*'];
    }
  }
}

/** How a relation names a node: notes and files as WikiLinks, links as links, text by its first line. */
function displayName(node: CanvasNode): string {
  switch (node.type) {
    case 'group':
      return node.label?.trim() ? `group "${shorten(node.label.trim())}"` : `group ${node.id}`;
    case 'file':
      return `[[${fileTarget(node)}]]`;
    case 'link':
      return markdownLink(node.url);
    case 'text': {
      const first = textLines(node.text)[0]?.replace(/^#{1,6}\s+/, '').trim();
      return first ? `"${shorten(first)}"` : `text ${node.id}`;
    }
  }
}

function arrow(edge: CanvasEdge): string {
  // JSON Canvas 1.0: fromEnd defaults to none, toEnd to arrow.
  const from = (edge.fromEnd ?? 'none') === 'arrow';
  const to = (edge.toEnd ?? 'arrow') === 'arrow';
  if (from && to) return '↔';
  if (to) return '→';
  if (from) return '←';
  return '—';
}

/**
 * Converts a JSON Canvas 1.0 document (an object or its JSON text) to a Markdown outline. Pure and deterministic:
 * nodes nest under the smallest group containing them, siblings follow reading order (top to bottom, then left to
 * right), and the edges follow under a "Relations" heading. Malformed input and more than 500 nodes are refused
 * with `invalid_request`.
 */
export function canvasToOutline(canvasJson: unknown): CanvasOutline {
  const canvas = validate(canvasJson);
  const parentOf = parents(canvas.nodes);
  const children = new Map<string | null, CanvasNode[]>();
  for (const node of canvas.nodes) {
    const parent = parentOf.get(node.id) ?? null;
    const list = children.get(parent) ?? [];
    list.push(node);
    children.set(parent, list);
  }
  for (const list of children.values()) list.sort(byReadingOrder);

  const out: string[] = [];
  const position = new Map<string, number>();
  const visit = (parent: string | null, depth: number) => {
    for (const node of children.get(parent) ?? []) {
      position.set(node.id, position.size);
      const indent = '  '.repeat(depth);
      const [first, ...rest] = nodeLines(node);
      out.push(`${indent}- ${first}`);
      for (const line of rest) out.push(line === '' ? '' : `${indent}  ${line}`);
      visit(node.id, depth + 1);
    }
  };
  visit(null, 0);

  if (canvas.edges.length > 0) {
    const byId = new Map(canvas.nodes.map((n) => [n.id, n]));
    const edges = [...canvas.edges].sort(
      (a, b) =>
        position.get(a.fromNode)! - position.get(b.fromNode)! ||
        position.get(a.toNode)! - position.get(b.toNode)! ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    if (out.length > 0) out.push('');
    out.push('## Relations', '');
    for (const edge of edges) {
      const label = edge.label?.replace(/\s+/g, ' ').trim();
      out.push(`- ${displayName(byId.get(edge.fromNode)!)} ${arrow(edge)} ${displayName(byId.get(edge.toNode)!)}${label ? ` (${label})` : ''}`);
    }
  }

  return { outline: out.length > 0 ? `${out.join('\n')}\n` : '', nodes: canvas.nodes.length, edges: canvas.edges.length, truncated: false };
}
