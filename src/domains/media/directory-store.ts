import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ByteRange, MediaStore } from './contract.ts';

/** Keys the media service makes: `<organizationId>/<mediaId>`, UUIDs both; anything else never reaches a path. */
const KEY_PATTERN = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/**
 * Media kept as files under a directory (KGATE_MEDIA_DIR), one file per object at `<root>/<organizationId>/<mediaId>`.
 * A file is written beside its place and renamed into it once synced, so that a read never sees half an object.
 * For one gateway on one machine; gateways that share a database share an object store instead (docs/operations.md).
 */
export function directoryMediaStore(root: string): MediaStore {
  const base = resolve(root);
  const pathOf = (key: string): string => {
    if (!KEY_PATTERN.test(key)) throw new Error(`not a media key: ${key}`);
    const path = join(base, ...key.split('/'));
    if (!path.startsWith(base + sep)) throw new Error(`not a media key: ${key}`);
    return path;
  };
  return {
    kind: 'directory',
    async put(key, bytes) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      const partial = `${path}.${newId()}.partial`;
      const file = await open(partial, 'wx', 0o600);
      try {
        await file.writeFile(bytes);
        await file.sync();
      } catch (error) {
        await file.close();
        await rm(partial, { force: true });
        throw error;
      }
      await file.close();
      await rename(partial, path);
    },
    async get(key, range) {
      const path = pathOf(key);
      try {
        await stat(path);
      } catch (error) {
        throw notFoundOr(error);
      }
      return readRange(path, range);
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

/**
 * The bytes of a range, opened only when the reader starts and closed however it stops. No descriptor is held before
 * the first read: a reader that goes away before it (a client that hangs up at once) leaves nothing open for the garbage
 * collector to close, which Node 24 and later treat as an uncaught error.
 */
async function* readRange(path: string, range: ByteRange): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(path, { start: range.start, end: range.end, highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } catch (error) {
    // Deleted between the check and the first read: the same answer as before it.
    throw notFoundOr(error);
  } finally {
    stream.destroy();
  }
}

function notFoundOr(error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new KgateError('not_found', 'The media object is not in the store.');
  return error;
}
