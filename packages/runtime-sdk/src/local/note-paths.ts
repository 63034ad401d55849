/**
 * Note path rules of the local adapter: the server's (docs/notes.md, "Path rules"), so that what works locally
 * publishes unchanged, plus one of its own: no hidden folder or file names, because `.trash/` (and `.obsidian/`,
 * `.git/`) belong to the folder, not to its notes.
 */
import { invalidPath } from './refusal.js';

/** The longest note path, in UTF-8 bytes after NFC normalization. */
export const MAX_NOTE_PATH_BYTES = 1024;
/** The longest folder or file name, in UTF-8 bytes. */
export const MAX_PATH_SEGMENT_BYTES = 255;

// C0 controls (including NUL), DEL and C1 controls.
// eslint-disable-next-line no-control-regex -- the rule names control characters to refuse them
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// Bidirectional overrides and isolates make a path display as something it is not.
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/u;
const DRIVE_LETTER = /^[A-Za-z]:/;
const RESERVED_CHARACTER = /[<>:"|?*]/;
// Windows device names, before a name's first dot; without the `u` flag so that look-alike letters do not fold.
const RESERVED_NAME = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$)$/i;

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The canonical (NFC) form of a vault-relative note path, or an `invalid_path` refusal with the server's `reason`
 * (and `hidden_segment` for a name starting with a dot). Lenient about names Windows refuses: see
 * assertPortablePath for paths that content is written to.
 */
export function canonicalNotePath(input: unknown): string {
  if (typeof input !== 'string') throw invalidPath('not_a_string', 'The note path must be a string.');
  const path = input.normalize('NFC');
  if (path.length === 0) throw invalidPath('empty', 'The note path is empty.');
  if (bytes(path) > MAX_NOTE_PATH_BYTES) throw invalidPath('too_long', `The note path is longer than ${MAX_NOTE_PATH_BYTES} bytes.`);
  if (CONTROL.test(path)) throw invalidPath('control_character', 'The note path contains a control character.');
  if (BIDI_CONTROL.test(path)) throw invalidPath('bidi_control', 'The note path contains a bidirectional control character.');
  if (path.includes('\\')) throw invalidPath('backslash', 'The note path contains a backslash; use "/" between folders.');
  if (path.startsWith('/') || DRIVE_LETTER.test(path)) throw invalidPath('absolute', 'The note path must be relative to the workspace folder.');
  for (const segment of path.split('/')) {
    if (segment === '') throw invalidPath('empty_segment', 'The note path has an empty folder name ("//" or a trailing "/").');
    if (segment === '.' || segment === '..') throw invalidPath('dot_segment', 'The note path may not contain "." or "..".');
    if (bytes(segment) > MAX_PATH_SEGMENT_BYTES) throw invalidPath('segment_too_long', `A folder or file name is longer than ${MAX_PATH_SEGMENT_BYTES} bytes.`);
    if (segment.startsWith('.')) throw invalidPath('hidden_segment', 'Hidden folders and files (such as .trash/) are not notes of the local workspace.');
  }
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  if (!fileName.endsWith('.md') || fileName.length === '.md'.length) {
    throw invalidPath('not_markdown', 'The note path must end in a file name with the ".md" extension.');
  }
  return path;
}

/** Refuses a canonical path that Windows or a synced drive could not hold, for paths content is written to. */
export function assertPortablePath(path: string): void {
  for (const segment of path.split('/')) {
    const character = RESERVED_CHARACTER.exec(segment)?.[0];
    if (character !== undefined) throw invalidPath('reserved_character', `The name ${JSON.stringify(segment)} contains ${JSON.stringify(character)}.`);
    if (segment.endsWith('.') || segment.endsWith(' ')) throw invalidPath('trailing_dot_or_space', `The name ${JSON.stringify(segment)} ends in a dot or a space.`);
    const stem = segment.split('.', 1)[0]!.replace(/ +$/, '');
    if (RESERVED_NAME.test(stem)) throw invalidPath('reserved_name', `The name ${JSON.stringify(segment)} is a reserved device name on Windows.`);
  }
}

/** Whether `path` is a note path the listing can show (the same rules, answered as a boolean). */
export function isListableNotePath(path: string): boolean {
  try {
    return canonicalNotePath(path) === path;
  } catch {
    return false;
  }
}
