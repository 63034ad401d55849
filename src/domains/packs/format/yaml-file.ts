/** A YAML file of a pack, parsed with positions, so that every problem can name its line. */
import { LineCounter, isMap, isNode, isPair, isScalar, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import type { PackProblem } from './problems.ts';

/** A path into a YAML document: map keys and sequence indexes. */
export type YamlPath = readonly PropertyKey[];

/** A parsed YAML file: its plain value, its syntax problems and the line of any path in it. */
export interface YamlFile {
  file: string;
  value: unknown;
  problems: PackProblem[];
  /** The 1-based line of the node at `path`, or of its nearest existing ancestor when the path does not exist. */
  lineAt(path: YamlPath): number;
  /** The 1-based line of the key `key` of the map at `path` (for an unknown field), else the map's line. */
  keyLineAt(path: YamlPath, key: string): number;
}

function nodeStart(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[0] : undefined;
}

/** Parses `text` as the file `file`. Syntax errors become problems; the value is then whatever could be read. */
export function parseYamlFile(file: string, text: string): YamlFile {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problems: PackProblem[] = doc.errors.map((error) => ({
    file,
    line: lineCounter.linePos(error.pos[0]).line,
    message: `YAML: ${error.message.split('\n')[0]}`,
  }));
  const lineOf = (offset: number | undefined): number => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  const lineAt = (path: YamlPath): number => {
    for (let length = path.length; length > 0; length--) {
      const start = nodeStart(doc.getIn(path.slice(0, length) as unknown[], true));
      if (start !== undefined) return lineOf(start);
    }
    return lineOf(nodeStart(doc.contents));
  };
  const keyLineAt = (path: YamlPath, key: string): number => {
    const node = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === key);
      const start = pair ? nodeStart(pair.key) : undefined;
      if (start !== undefined) return lineOf(start);
    }
    return lineAt(path);
  };
  return { file, value: doc.errors.length > 0 ? undefined : (doc.toJS() as unknown), problems, lineAt, keyLineAt };
}
