import { KgateError } from './errors.ts';

/** The longest note path we accept, in UTF-8 bytes after NFC normalization. */
export const MAX_NOTE_PATH_BYTES = 1024;
/** The longest single path segment, in UTF-8 bytes: the common file-system limit for one name. */
export const MAX_PATH_SEGMENT_BYTES = 255;

/** Every reason a path can be rejected for, in the order of the rules table in docs/notes.md. */
export const INVALID_PATH_REASONS = [
  'not_a_string',
  'empty',
  'too_long',
  'segment_too_long',
  'control_character',
  'bidi_control',
  'backslash',
  'absolute',
  'empty_segment',
  'dot_segment',
  'not_markdown',
  'reserved_character',
  'trailing_dot_or_space',
  'reserved_name',
] as const;

/** Why a path was rejected; returned to clients in `details.reason`. */
export type InvalidPathReason = (typeof INVALID_PATH_REASONS)[number];

// C0 controls (including NUL), DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// Bidirectional overrides and isolates: they make a path display differently from what it is ("Trojan Source").
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/u;
const DRIVE_LETTER = /^[A-Za-z]:/;

function reject(reason: InvalidPathReason, message: string): never {
  throw new KgateError('invalid_path', message, { reason });
}

/**
 * Validates a vault-relative note path and returns its canonical form (Unicode NFC). Canonical paths are what we
 * store and compare, so `café.md` typed as e + combining accent and as é is one note, as on macOS and in Obsidian.
 * Throws `invalid_path` with a `reason` for: non-strings, empty input, more than 1,024 bytes, control or bidi
 * characters, backslashes, absolute paths, empty, `.` or `..` segments, and names not ending in `.md`.
 * It stays lenient about names Windows refuses, so that notes stored under them can still be addressed; paths that
 * content is written to also pass assertPortableNotePath.
 */
export function normalizeNotePath(input: unknown): string {
  if (typeof input !== 'string') reject('not_a_string', 'The note path must be a string.');
  const path = input.normalize('NFC');
  if (path.length === 0) reject('empty', 'The note path is empty.');
  if (Buffer.byteLength(path, 'utf8') > MAX_NOTE_PATH_BYTES) {
    reject('too_long', `The note path is longer than ${MAX_NOTE_PATH_BYTES} bytes.`);
  }
  if (CONTROL.test(path)) reject('control_character', 'The note path contains a control character.');
  if (BIDI_CONTROL.test(path)) reject('bidi_control', 'The note path contains a bidirectional control character.');
  if (path.includes('\\')) reject('backslash', 'The note path contains a backslash; use "/" between folders.');
  if (path.startsWith('/') || DRIVE_LETTER.test(path)) {
    reject('absolute', 'The note path must be relative to the vault root.');
  }
  for (const segment of path.split('/')) {
    if (segment === '') reject('empty_segment', 'The note path has an empty folder name ("//" or a trailing "/").');
    if (segment === '.' || segment === '..') reject('dot_segment', 'The note path may not contain "." or "..".');
    if (Buffer.byteLength(segment, 'utf8') > MAX_PATH_SEGMENT_BYTES) {
      reject('segment_too_long', `A folder or file name is longer than ${MAX_PATH_SEGMENT_BYTES} bytes.`);
    }
  }
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  if (!fileName.endsWith('.md') || fileName.length === '.md'.length) {
    reject('not_markdown', 'The note path must end in a file name with the ".md" extension.');
  }
  return path;
}

// Characters that Windows refuses in names, and with it OneDrive, Dropbox and Google Drive when they sync to Windows.
// The backslash and controls are refused by normalizeNotePath already.
const RESERVED_CHARACTER = /[<>:"|?*]/;
// Windows device names ("Naming Files, Paths, and Namespaces"; CONIN$ and CONOUT$ from CreateFile's consoles).
// Deliberately without the `u` flag: its case folding would let look-alikes such as the dotless ı match the I of
// CONIN$, which Windows does not treat as a device. ¹ ² ³ are the superscript digits Windows also reserves.
const RESERVED_NAME = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$)$/i;

/**
 * Refuses a canonical path (from normalizeNotePath) that could not be written to Windows or to a synced drive:
 * `invalid_path` with reason `reserved_character` for `< > : " | ? *` in a name, `trailing_dot_or_space` for a
 * folder or file name that ends in "." or " " (Windows drops them, so the file would change name), and
 * `reserved_name` for a device name such as CON, NUL, COM1 or LPT1 as a name's part before its first dot.
 * Only paths that content is written to are checked: notes stored before these rules keep their paths, and can be
 * read, deleted and moved to a portable path (see docs/notes.md, "Portable paths").
 */
export function assertPortableNotePath(canonicalPath: string): void {
  for (const segment of canonicalPath.split('/')) {
    const character = RESERVED_CHARACTER.exec(segment)?.[0];
    if (character !== undefined) {
      reject('reserved_character', `The name ${JSON.stringify(segment)} contains ${JSON.stringify(character)}; Windows and synced drives refuse < > : " | ? * in names.`);
    }
    if (segment.endsWith('.') || segment.endsWith(' ')) {
      reject('trailing_dot_or_space', `The name ${JSON.stringify(segment)} ends in a dot or a space, which Windows and synced drives drop.`);
    }
    // Windows ignores an extension and trailing spaces after a device name: "NUL.txt" and "nul .md" are NUL too.
    const stem = segment.split('.', 1)[0]!.replace(/ +$/, '');
    if (RESERVED_NAME.test(stem)) {
      reject('reserved_name', `The name ${JSON.stringify(segment)} is a reserved device name on Windows (${stem}), with or without an extension.`);
    }
  }
}

/**
 * The uniqueness key of a canonical path: case-folded. Two notes whose paths differ only in case would collide on
 * macOS, Windows and Dropbox, so a vault holds at most one of them. `toLowerCase` is locale-independent in
 * JavaScript, which keeps the key identical on PGlite and PostgreSQL whatever their collation.
 */
export function notePathKey(canonicalPath: string): string {
  return canonicalPath.toLowerCase();
}

/** The file name without folders and without the `.md` extension: the fallback title of a note. */
export function noteBaseName(canonicalPath: string): string {
  const fileName = canonicalPath.slice(canonicalPath.lastIndexOf('/') + 1);
  return fileName.slice(0, -'.md'.length);
}
