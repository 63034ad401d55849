import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES, detectAudioContainer } from './container.ts';

// Real encoder output (test/fixtures/media/README.md says how each was made).
const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/media/${name}`, import.meta.url));

/** An ISO BMFF `ftyp` box with these brands, then a little more. */
function ftyp(major: string, compatible: string[]): Buffer {
  const size = 16 + 4 * compatible.length;
  const box = Buffer.alloc(size + 8);
  box.writeUInt32BE(size, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((brand, i) => box.write(brand, 16 + 4 * i, 'latin1'));
  box.writeUInt32BE(8, size);
  box.write('free', size + 4, 'latin1');
  return box;
}

/** An EBML header whose DocType is `docType`, as the WebM fixture's but with another type (same length kept). */
function ebmlWith(docType: string): Buffer {
  const webm = Buffer.from(fixture('tone.webm'));
  const at = webm.indexOf(Buffer.from([0x42, 0x82, 0x84]));
  webm.write(docType.padEnd(4, '\0'), at + 3, 'latin1');
  return webm;
}

describe('audio containers by their signature', () => {
  it('recognizes what encoders write: WebM (Opus), Ogg (Opus, Vorbis) and MP4 (AAC, ftyp M4A)', () => {
    expect(detectAudioContainer(fixture('tone.webm'))).toBe('webm');
    expect(detectAudioContainer(fixture('tone.ogg'))).toBe('ogg');
    expect(detectAudioContainer(fixture('tone-vorbis.ogg'))).toBe('ogg');
    expect(detectAudioContainer(fixture('tone.m4a'))).toBe('mp4');
  });

  it('refuses other containers: Matroska that is not WebM, MP3, WAVE, images, text, nothing', () => {
    expect(detectAudioContainer(fixture('tone.mka'))).toBeUndefined();
    expect(detectAudioContainer(fixture('tone.mp3'))).toBeUndefined();
    expect(detectAudioContainer(fixture('tone.wav'))).toBeUndefined();
    expect(detectAudioContainer(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).toBeUndefined();
    expect(detectAudioContainer(Buffer.from('{"audio": "webm"}'))).toBeUndefined();
    expect(detectAudioContainer(new Uint8Array(0))).toBeUndefined();
  });

  it('reads the DocType, not the EBML magic alone, and allows it NUL-padded', () => {
    expect(detectAudioContainer(ebmlWith('webm'))).toBe('webm');
    expect(detectAudioContainer(ebmlWith('web'))).toBeUndefined();
    expect(detectAudioContainer(ebmlWith('mka'))).toBeUndefined();
  });

  it('refuses an EBML header that is cut short or whose sizes run past it', () => {
    const webm = fixture('tone.webm');
    const headerEnd = 5 + (webm[4]! & 0x7f);
    expect(detectAudioContainer(webm.subarray(0, headerEnd))).toBe('webm');
    expect(detectAudioContainer(webm.subarray(0, headerEnd - 1))).toBeUndefined();
    const lying = Buffer.from(webm);
    lying[4] = 0xff; // an "unknown" size: the header would run to the end of the file
    expect(detectAudioContainer(lying.subarray(0, 64))).toBeUndefined();
  });

  it('accepts an Ogg first page only with stream structure version 0 and the beginning-of-stream flag', () => {
    const ogg = fixture('tone.ogg');
    const version1 = Buffer.from(ogg);
    version1[4] = 1;
    const notFirst = Buffer.from(ogg);
    notFirst[5] = 0;
    expect(detectAudioContainer(version1)).toBeUndefined();
    expect(detectAudioContainer(notFirst)).toBeUndefined();
    expect(detectAudioContainer(ogg.subarray(0, 26))).toBeUndefined();
  });

  it('accepts an MP4 by an audio-capable major or compatible brand, and refuses image and QuickTime brands', () => {
    expect(detectAudioContainer(ftyp('M4A ', []))).toBe('mp4');
    expect(detectAudioContainer(ftyp('XXXX', ['abcd', 'mp42']))).toBe('mp4');
    expect(detectAudioContainer(ftyp('isom', ['iso2']))).toBe('mp4');
    expect(detectAudioContainer(ftyp('heic', ['mif1', 'heic']))).toBeUndefined();
    expect(detectAudioContainer(ftyp('avif', ['avif', 'mif1', 'miaf']))).toBeUndefined();
    expect(detectAudioContainer(ftyp('qt  ', ['qt  ']))).toBeUndefined();
  });

  it('refuses an ftyp box whose size is too small, not whole brands, or past the bytes sent', () => {
    const box = ftyp('M4A ', ['isom']);
    const small = Buffer.from(box);
    small.writeUInt32BE(12, 0);
    const ragged = Buffer.from(box);
    ragged.writeUInt32BE(22, 0);
    expect(detectAudioContainer(small)).toBeUndefined();
    expect(detectAudioContainer(ragged)).toBeUndefined();
    expect(detectAudioContainer(box.subarray(0, 19))).toBeUndefined();
  });

  it(`looks at the first ${SNIFF_BYTES} bytes only: an ftyp box larger than that is refused`, () => {
    const brands = Array.from({ length: (SNIFF_BYTES - 16) / 4 }, () => 'abcd');
    const fits = ftyp('XXXX', [...brands.slice(1), 'M4A ']);
    const tooLarge = ftyp('XXXX', [...brands, 'M4A ']);
    expect(detectAudioContainer(fits)).toBe('mp4');
    expect(detectAudioContainer(tooLarge)).toBeUndefined();
  });
});
