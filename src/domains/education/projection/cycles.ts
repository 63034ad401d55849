/**
 * Cycles of a directed graph, as its strongly connected components (Tarjan's algorithm). Written without recursion:
 * a prerequisite chain of ten thousand targets would otherwise be ten thousand stack frames deep.
 */
import { byText } from './order.ts';

/**
 * The cycles of the graph: every strongly connected component of two or more nodes, and every node with an edge to
 * itself. Each cycle's nodes are sorted, and cycles are sorted by their first node, so the answer does not depend on
 * the order of `edges`.
 */
export function cyclesOf(edges: ReadonlyArray<readonly [string, string]>): string[][] {
  const next = new Map<string, string[]>();
  const selfLoops = new Set<string>();
  for (const [from, to] of edges) {
    if (from === to) selfLoops.add(from);
    const list = next.get(from);
    if (list) list.push(to);
    else next.set(from, [to]);
    if (!next.has(to)) next.set(to, []);
  }
  const nodes = [...next.keys()].sort(byText);
  for (const list of next.values()) list.sort(byText);

  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;

  for (const root of nodes) {
    if (index.has(root)) continue;
    // Each frame is a node and how many of its successors have been visited.
    const frames: Array<{ node: string; position: number }> = [{ node: root, position: 0 }];
    index.set(root, counter);
    low.set(root, counter);
    counter += 1;
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const successors = next.get(frame.node)!;
      if (frame.position < successors.length) {
        const successor = successors[frame.position]!;
        frame.position += 1;
        if (!index.has(successor)) {
          index.set(successor, counter);
          low.set(successor, counter);
          counter += 1;
          stack.push(successor);
          onStack.add(successor);
          frames.push({ node: successor, position: 0 });
        } else if (onStack.has(successor)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(successor)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || selfLoops.has(frame.node)) cycles.push(component.sort(byText));
    }
  }
  return cycles.sort((a, b) => byText(a[0]!, b[0]!));
}
