import type { IncomingMessage } from 'node:http';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import Negotiator from 'negotiator';

// A gzip member header (RFC 1952 s2.3): magic, deflate, no flags, no modification time, no extra flags, OS unknown.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);

/** The largest tail one stored deflate block holds (RFC 1951 s3.2.4: LEN is 16 bits). */
export const MAX_GZIP_TAIL = 0xffff;

/**
 * A gzip body whose content is a large fixed prefix followed by a short tail that differs per response: a
 * JSON-RPC reply is the same tool list followed by the request's id. The prefix is compressed once, ended with a
 * sync flush so that the compressed bytes stop on a byte boundary without a final block; each response then
 * adds the tail as one final stored (uncompressed) block and the gzip trailer, whose CRC-32 continues from the
 * prefix's. Compressing 42 KB per request would cost more CPU than sending it; this costs a few bytes' work.
 */
export class GzipPrefix {
  /** The gzip header and the compressed prefix, shared by every response. */
  readonly head: Buffer;
  private readonly crc: number;
  private readonly size: number;

  constructor(prefix: Buffer) {
    this.head = Buffer.concat([GZIP_HEADER, deflateRawSync(prefix, { level: constants.Z_BEST_COMPRESSION, finishFlush: constants.Z_SYNC_FLUSH })]);
    this.crc = crc32(prefix);
    this.size = prefix.length;
  }

  /** The whole gzip body of the prefix followed by `tail`, as parts to write in turn (the head is shared). */
  withTail(tail: Buffer): [Buffer, Buffer] {
    if (tail.length > MAX_GZIP_TAIL) throw new RangeError(`A gzip tail holds at most ${MAX_GZIP_TAIL} bytes.`);
    const end = Buffer.allocUnsafe(5 + tail.length + 8);
    // BFINAL 1, BTYPE 00 (stored); the other five bits pad the header to the byte boundary the block needs.
    end[0] = 1;
    end.writeUInt16LE(tail.length, 1);
    end.writeUInt16LE(~tail.length & 0xffff, 3);
    tail.copy(end, 5);
    end.writeUInt32LE(crc32(tail, this.crc), 5 + tail.length);
    // ISIZE is the uncompressed size modulo 2^32.
    end.writeUInt32LE((this.size + tail.length) % 2 ** 32, 9 + tail.length);
    return [this.head, end];
  }
}

/**
 * Whether the request accepts a gzip body (RFC 9110 s12.5.3, with q-values: `gzip;q=0` refuses it). A request
 * without Accept-Encoding gets the identity encoding: some clients that omit it cannot decode anything else.
 */
export function acceptsGzip(req: Pick<IncomingMessage, 'headers'>): boolean {
  if (req.headers['accept-encoding'] === undefined) return false;
  return new Negotiator(req).encodings(['gzip']).length > 0;
}
