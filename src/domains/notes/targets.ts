import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import {
  findHeadings,
  headingPath,
  lineBreakOf,
  listHeadings,
  listMarkedBlocks,
  locateFrontmatter,
  locateFrontmatterKey,
  noteLines,
  sectionAppendPoint,
} from '../markdown/index.ts';
import type { NoteTarget } from './transaction-contract.ts';

/*
 * Section-level writes (docs/api.md#section-level-writes): a write's `content` is the new content of one target of
 * the note (a heading's section, a `^id` block, a frontmatter key), and this makes the whole note from it. Only the
 * target's characters change; the rest of the note is copied as it is. Pure, so that planning resolves a target
 * against the note it holds under the vault's lock, and a preview against the note it read.
 */

/** Why a target cannot be applied; `details` go into the refusal. */
export interface TargetProblem {
  code: ErrorCode;
  detail: string;
  details: Record<string, unknown>;
}

/** The whole note after a targeted write, or why there is none. */
export type TargetOutcome = { ok: true; content: string } | { ok: false; problem: TargetProblem };

const refuse = (code: ErrorCode, detail: string, details: Record<string, unknown>): TargetOutcome => ({ ok: false, problem: { code, detail, details } });

/** `text` with its line breaks in the note's style. */
function inStyle(text: string, eol: string): string {
  return text.replace(/\r?\n/g, eol);
}

/** `text` without one trailing line break. */
function withoutFinalBreak(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

function splice(note: string, start: number, end: number, text: string): string {
  return note.slice(0, start) + text + note.slice(end);
}

/**
 * Text that lies at `[start, end)` of the note, followed by the rest: a line break ends it when anything follows;
 * at the note's end, it ends in one exactly when the note did, so the note keeps its trailing newline or its absence.
 */
function fitted(note: string, end: number, text: string, eol: string): string {
  if (text === '') return text;
  if (end === note.length) return withoutFinalBreak(text) + (note.endsWith('\n') ? eol : '');
  return text.endsWith('\n') ? text : text + eol;
}

function applyHeading(note: string, target: Extract<NoteTarget, { type: 'heading' }>, content: string): TargetOutcome {
  const lines = noteLines(note);
  const matches = findHeadings(listHeadings(note, lines), headingPath(target.heading));
  if (matches.length === 0) return refuse('target_not_found', `The note has no heading "${target.heading}".`, { target });
  if (matches.length > 1) {
    const at = matches.map((h) => h.line + 1);
    return refuse('target_ambiguous', `${matches.length} headings match "${target.heading}" (lines ${at.join(', ')}); name their parents (Parent > Child).`, {
      target,
      matches: at,
    });
  }
  const heading = matches[0]!;
  const eol = lineBreakOf(note);
  const text = inStyle(content, eol);
  if (target.mode === 'replace') {
    const body = fitted(note, heading.sectionEnd, text, eol);
    return { ok: true, content: splice(note, heading.bodyStart, heading.sectionEnd, (heading.hasBreak || body === '' ? '' : eol) + body) };
  }
  if (text === '') return { ok: true, content: note };
  const point = sectionAppendPoint(note, lines, heading);
  const added = point.at === note.length ? withoutFinalBreak(text) + (point.needsBreak ? '' : eol) : text.endsWith('\n') ? text : text + eol;
  return { ok: true, content: splice(note, point.at, point.at, (point.needsBreak ? eol : '') + added) };
}

function applyBlock(note: string, target: Extract<NoteTarget, { type: 'block' }>, content: string): TargetOutcome {
  const matches = listMarkedBlocks(note).filter((b) => b.id === target.blockId);
  if (matches.length === 0) return refuse('target_not_found', `The note has no block marked ^${target.blockId}.`, { target });
  if (matches.length > 1) {
    const at = matches.map((b) => b.line + 1);
    return refuse('target_ambiguous', `${matches.length} blocks are marked ^${target.blockId} (lines ${at.join(', ')}).`, { target, matches: at });
  }
  const text = inStyle(content, lineBreakOf(note)).replace(/[\s]+$/, '');
  // A blank line would end the block before its marker: the marker would then mark only the text after it.
  if (/\n[ \t]*\r?\n/.test(text)) return refuse('invalid_request', 'A block\'s new content cannot hold a blank line.', { target });
  const block = matches[0]!;
  return { ok: true, content: splice(note, block.start, block.end, text) };
}

/** A key as YAML writes it: plain when that reads back as the same string, double-quoted (JSON) otherwise. */
function yamlKey(key: string): string {
  if (/^[A-Za-z0-9_][A-Za-z0-9_ .-]*$/.test(key) && !key.endsWith(' ')) {
    const read: unknown = parseDocument(`${key}: 0`).toJS();
    if (read !== null && typeof read === 'object' && Object.keys(read).includes(key)) return key;
  }
  return JSON.stringify(key);
}

function applyFrontmatter(note: string, target: Extract<NoteTarget, { type: 'frontmatter' }>, content: string): TargetOutcome {
  const eol = lineBreakOf(note);
  const value = inStyle(content, eol).replace(/(\r?\n)+$/, '');
  const parsed = parseDocument(value);
  if (parsed.errors.length > 0) {
    return refuse('invalid_request', `The content is not a YAML value: ${parsed.errors[0]!.message.split('\n')[0]}`, { target });
  }
  const spot = locateFrontmatterKey(note, target.key);
  if (spot.kind === 'unreadable') return refuse('invalid_request', spot.reason, { target });
  const keyText = spot.kind === 'found' ? spot.keyText : yamlKey(target.key);
  const lines = value.split(eol);
  const pair =
    lines.length === 1
      ? value === ''
        ? `${keyText}:`
        : `${keyText}: ${value}`
      : `${keyText}:${lines.map((line) => eol + (line === '' ? '' : `  ${line}`)).join('')}`;
  let result: string;
  if (spot.kind === 'found') result = splice(note, spot.start, spot.end, pair);
  else if (spot.kind === 'missing') result = splice(note, spot.at, spot.at, spot.breakBefore ? eol + pair : pair + eol);
  else result = splice(note, spot.at, spot.at, `---${eol}${pair}${eol}---${eol}`);
  // The value must read back as itself under the key, and the block as YAML: otherwise its text changed its meaning.
  const block = locateFrontmatter(result);
  const doc = block ? parseDocument(result.slice(block.yamlStart, block.yamlEnd)) : undefined;
  const data: unknown = doc && doc.errors.length === 0 ? doc.toJS() : undefined;
  const expected: unknown = parsed.toJS();
  const readBack = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[target.key] : undefined;
  if (data === undefined || !isDeepStrictEqual(readBack ?? null, expected ?? null)) {
    return refuse('invalid_request', `The value does not read back as one YAML value of ${target.key}.`, { target });
  }
  return { ok: true, content: result };
}

/**
 * The whole note after writing `content` to `target` of `note`: a heading's section (replace: its body and
 * subheadings, the heading line kept; append: after its last non-blank line), a `^id` block (its text, the marker
 * kept), or a frontmatter key's value (added at the end of the block, or in a new block, when missing). The
 * content's line breaks take the note's style. Refuses a missing target (target_not_found), a heading or block id
 * several match (target_ambiguous, with their 1-based lines), and content that cannot stand there (invalid_request).
 */
export function applyTarget(note: string, target: NoteTarget, content: string): TargetOutcome {
  switch (target.type) {
    case 'heading':
      return applyHeading(note, target, content);
    case 'block':
      return applyBlock(note, target, content);
    case 'frontmatter':
      return applyFrontmatter(note, target, content);
  }
}
