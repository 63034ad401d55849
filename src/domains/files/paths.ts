import { KgateError } from '../../kernel/errors.ts';
import { assertPortableNotePath, MAX_NOTE_PATH_BYTES, MAX_PATH_SEGMENT_BYTES, notePathKey } from '../../kernel/vault-path.ts';
import type { VaultFileKind } from './contract.ts';

/*
 * Path rules of canvases and attachments (docs/vaults.md, "Canvases and attachments"): the rules of note paths
 * (kernel/vault-path.ts) except the ".md" ending, which a file must NOT have (a note and a file never share a path),
 * plus one more: no segment may start with ".", so that `.obsidian/`, `.trash/` or `.git/` can never be stored and
 * an export never writes an app's settings or a repository's internals.
 */

/** Why a file path was refused, in `details.reason`: the note path reasons, and the two of files. */
export type InvalidFilePathReason =
  | 'not_a_string'
  | 'empty'
  | 'too_long'
  | 'segment_too_long'
  | 'control_character'
  | 'bidi_control'
  | 'backslash'
  | 'absolute'
  | 'empty_segment'
  | 'dot_segment'
  | 'hidden_segment'
  | 'markdown_file';

// eslint-disable-next-line no-control-regex -- matching control characters is the point of this rule.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/u;
const DRIVE_LETTER = /^[A-Za-z]:/;

function reject(reason: InvalidFilePathReason, message: string): never {
  throw new KgateError('invalid_path', message, { reason });
}

/**
 * Validates a vault-relative file path and returns its canonical form (NFC), or throws `invalid_path` with a
 * `reason`. Like note paths, lenient about names Windows refuses (so that such a file can still be read and
 * deleted); paths written to also pass `assertPortableFilePath`.
 */
export function normalizeFilePath(input: unknown): string {
  if (typeof input !== 'string') reject('not_a_string', 'The file path must be a string.');
  const path = input.normalize('NFC');
  if (path.length === 0) reject('empty', 'The file path is empty.');
  if (Buffer.byteLength(path, 'utf8') > MAX_NOTE_PATH_BYTES) reject('too_long', `The file path is longer than ${MAX_NOTE_PATH_BYTES} bytes.`);
  if (CONTROL.test(path)) reject('control_character', 'The file path contains a control character.');
  if (BIDI_CONTROL.test(path)) reject('bidi_control', 'The file path contains a bidirectional control character.');
  if (path.includes('\\')) reject('backslash', 'The file path contains a backslash; use "/" between folders.');
  if (path.startsWith('/') || DRIVE_LETTER.test(path)) reject('absolute', 'The file path must be relative to the vault root.');
  for (const segment of path.split('/')) {
    if (segment === '') reject('empty_segment', 'The file path has an empty folder name ("//" or a trailing "/").');
    if (segment === '.' || segment === '..') reject('dot_segment', 'The file path may not contain "." or "..".');
    if (segment.startsWith('.')) {
      reject('hidden_segment', `The file path has a hidden name (${JSON.stringify(segment)}); hidden files and folders such as .obsidian/ are not stored.`);
    }
    if (Buffer.byteLength(segment, 'utf8') > MAX_PATH_SEGMENT_BYTES) {
      reject('segment_too_long', `A folder or file name is longer than ${MAX_PATH_SEGMENT_BYTES} bytes.`);
    }
  }
  if (path.toLowerCase().endsWith('.md')) reject('markdown_file', 'A path ending in ".md" is a note: write it through the note routes.');
  return path;
}

/** Refuses a canonical file path that Windows or a synced drive could not hold (the rules of note paths). */
export function assertPortableFilePath(canonicalPath: string): void {
  assertPortableNotePath(canonicalPath);
}

/** The uniqueness key of a canonical file path: case-folded, as for notes. */
export function filePathKey(canonicalPath: string): string {
  return notePathKey(canonicalPath);
}

/** A file's kind from its path: `.canvas` (any case) is a canvas, anything else an attachment. */
export function fileKindOf(canonicalPath: string): VaultFileKind {
  return canonicalPath.toLowerCase().endsWith('.canvas') ? 'canvas' : 'attachment';
}
