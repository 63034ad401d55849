import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PACK_FILE_BYTES, loadPack } from './index.ts';
import type { PackProblem } from './index.ts';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/packs/k8-math', import.meta.url));
const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A copy of the example pack in a fresh temporary folder. */
async function copyOfExample(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kgate-pack-'));
  made.push(dir);
  await cp(EXAMPLE, dir, { recursive: true });
  return dir;
}

/** Replaces the first occurrence of `from` (which must be there) in a file of the pack; answers the new text. */
async function edit(dir: string, file: string, from: string, to: string): Promise<string> {
  const text = await readFile(join(dir, file), 'utf8');
  expect(text).toContain(from);
  const changed = text.replace(from, to);
  await writeFile(join(dir, file), changed);
  return changed;
}

/** The 1-based line of the first occurrence of `needle` in `text`. */
function lineOf(text: string, needle: string): number {
  const index = text.indexOf(needle);
  expect(index).toBeGreaterThanOrEqual(0);
  return text.slice(0, index).split('\n').length;
}

async function problemsOf(dir: string): Promise<PackProblem[]> {
  const result = await loadPack(dir);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.problems;
}

/** Asserts that loading `dir` is refused with exactly one problem, in `file` at `line`, whose message matches. */
async function expectOnlyProblem(dir: string, file: string, line: number, message: RegExp): Promise<void> {
  const problems = await problemsOf(dir);
  expect(problems).toEqual([{ file, line, message: expect.stringMatching(message) as unknown }]);
}

describe('loadPack: the example pack', () => {
  it('loads with no problem: 3 source versions, 12 assertions, 2 insights', async () => {
    const result = await loadPack(EXAMPLE);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const { pack } = result;
    expect(pack.product).toBe('tutor');
    expect(pack.slug).toBe('k8-math');
    expect(pack.sources.flatMap((source) => source.versions)).toHaveLength(3);
    expect(pack.assertions).toHaveLength(12);
    expect(pack.insights).toHaveLength(2);
    const v2017 = pack.sources[0]!.versions[0]!;
    expect(v2017.version).toBe('2017');
    expect(v2017.text.split('\n')[6]).toContain('3.NF.1');
  });

  it('loads without insights.yaml: it is optional', async () => {
    const dir = await copyOfExample();
    await rm(join(dir, 'insights.yaml'));
    const result = await loadPack(dir);
    expect(result.ok && result.pack.insights).toEqual([]);
  });
});

describe('loadPack: refusals, each naming the file and line', () => {
  it('refuses a wrong format version', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'pack.yaml', 'pack: 1', 'pack: 2');
    await expectOnlyProblem(dir, 'pack.yaml', lineOf(text, 'pack: 2'), /format version/);
  });

  it('refuses an unknown field at the line of its key', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', '  accepted: 2024-08-20\n  supersedes: [number-line-g3]', '  accepted: 2024-08-20\n  confidence: high\n  supersedes: [number-line-g3]');
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, 'confidence: high'), /unknown field "confidence"/);
  });

  it('refuses a missing field at the line of the object', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'insights.yaml', '  availableFrom: 2024-08-20\n', '');
    await expectOnlyProblem(dir, 'insights.yaml', lineOf(text, '- id: fractions-above-one'), /availableFrom: missing field/);
  });

  it('refuses a date that is not YYYY-MM-DD, and one that is no calendar date', async () => {
    const dir = await copyOfExample();
    await edit(dir, 'pack.yaml', 'published: 2017-06-01', 'published: 2017-6-1');
    const text = await edit(dir, 'pack.yaml', 'reported: 2024-02-20', 'reported: 2024-02-30');
    const problems = await problemsOf(dir);
    expect(problems).toEqual([
      { file: 'pack.yaml', line: lineOf(text, '2017-6-1'), message: expect.stringMatching(/calendar date/) as unknown },
      { file: 'pack.yaml', line: lineOf(text, '2024-02-30'), message: expect.stringMatching(/calendar date/) as unknown },
    ]);
  });

  it('refuses a citation that is not HTTPS or carries credentials', async () => {
    const dir = await copyOfExample();
    await edit(dir, 'pack.yaml', 'https://standards.riverton.example', 'http://standards.riverton.example');
    const text = await edit(dir, 'pack.yaml', 'https://education.riverton.example', 'https://user:secret@education.riverton.example');
    const problems = await problemsOf(dir);
    expect(problems.map((p) => [p.file, p.line])).toEqual([
      ['pack.yaml', lineOf(text, 'http://standards')],
      ['pack.yaml', lineOf(text, 'user:secret')],
    ]);
    expect(problems.every((p) => /HTTPS URL without credentials/.test(p.message))).toBe(true);
    expect(JSON.stringify(problems)).not.toContain('secret');
  });

  it('refuses a source id that could leave the folder', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'pack.yaml', 'id: fractions-guidance', 'id: ../fractions-guidance');
    await expectOnlyProblem(dir, 'pack.yaml', lineOf(text, '../fractions-guidance'), /simple name/);
  });

  it('refuses a YAML syntax error at its line', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'insights.yaml', 'derivedFrom: [number-line-g3, length-models-first]', 'derivedFrom: [number-line-g3, length-models-first');
    const problems = await problemsOf(dir);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]!.file).toBe('insights.yaml');
    expect(problems[0]!.line).toBeGreaterThanOrEqual(lineOf(text, 'length-models-first\n'));
  });

  it('refuses duplicate ids', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', '- id: number-line-g3\n', '- id: unit-fractions-g3\n');
    const second = text.indexOf('- id: unit-fractions-g3\n', text.indexOf('- id: unit-fractions-g3\n') + 1);
    const line = text.slice(0, second).split('\n').length;
    const problems = await problemsOf(dir);
    // number-line-g3 is gone too: what superseded it and the insight built on it are reported as well.
    expect(problems).toContainEqual({ file: 'assertions.yaml', line, message: 'duplicate assertion id "unit-fractions-g3"' });
  });

  it('refuses a duplicate version of a source', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'pack.yaml', "version: '2023'", "version: '2017'");
    // The assertions citing 2023 now name an unknown version as well.
    expect(await problemsOf(dir)).toContainEqual({
      file: 'pack.yaml',
      line: lineOf(text, "version: '2017'\n        published: 2023"),
      message: 'duplicate version "2017" of source "state-math-standards"',
    });
  });

  it('refuses a source version whose text file is missing, at the version in pack.yaml', async () => {
    const dir = await copyOfExample();
    await rm(join(dir, 'sources/fractions-guidance/2024.md'));
    const text = await readFile(join(dir, 'pack.yaml'), 'utf8');
    await expectOnlyProblem(dir, 'pack.yaml', lineOf(text, "version: '2024'"), /sources\/fractions-guidance\/2024\.md, is missing/);
  });

  it('refuses a source text that is a symbolic link out of the folder, reading nothing outside', async () => {
    const dir = await copyOfExample();
    const outside = await mkdtemp(join(tmpdir(), 'kgate-outside-'));
    made.push(outside);
    await writeFile(join(outside, 'secret.md'), 'outside text\n');
    await rm(join(dir, 'sources/fractions-guidance/2024.md'));
    await symlink(join(outside, 'secret.md'), join(dir, 'sources/fractions-guidance/2024.md'));
    await expectOnlyProblem(dir, 'sources/fractions-guidance/2024.md', 1, /resolves outside the pack folder/);
  });

  it('refuses a source text that is not UTF-8', async () => {
    const dir = await copyOfExample();
    await writeFile(join(dir, 'sources/fractions-guidance/2024.md'), Buffer.from([0x66, 0xff, 0xfe, 0x0a]));
    await expectOnlyProblem(dir, 'sources/fractions-guidance/2024.md', 1, /not UTF-8/);
  });

  it('refuses a source text larger than 1 MiB', async () => {
    const dir = await copyOfExample();
    await writeFile(join(dir, 'sources/fractions-guidance/2024.md'), 'a'.repeat(MAX_PACK_FILE_BYTES + 1));
    await expectOnlyProblem(dir, 'sources/fractions-guidance/2024.md', 1, /larger than/);
  });

  it('refuses more than 100 versions of a source, at the versions list', async () => {
    const dir = await copyOfExample();
    const extra = Array.from({ length: 100 }, (_, n) => `      - version: 'x${n}'\n        published: 2024-02-01\n        reported: 2024-02-20\n        extraction: 1\n`).join('');
    const text = await edit(dir, 'pack.yaml', "      - version: '2024'\n", `${extra}      - version: '2024'\n`);
    // A block list starts at its first item, the line after `versions:`.
    const listLine = text.split('\n').lastIndexOf('    versions:') + 2;
    expect(await problemsOf(dir)).toContainEqual({ file: 'pack.yaml', line: listLine, message: 'sources.1.versions: at most 100 versions per source' });
  });

  it('refuses a missing assertions.yaml', async () => {
    const dir = await copyOfExample();
    await rm(join(dir, 'assertions.yaml'));
    await expectOnlyProblem(dir, 'assertions.yaml', 1, /missing/);
  });

  it('refuses evidence naming an unknown source', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', 'source: fractions-guidance', 'source: fraction-guidance');
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, 'source: fraction-guidance'), /unknown source "fraction-guidance"/);
  });

  it('refuses evidence naming an unknown version', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', "version: '2024'", "version: '2025'");
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, "version: '2025'"), /unknown version "2025"/);
  });

  it('refuses a line range outside the file', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', 'lines: [15, 15]\n      quote: "Ask', 'lines: [15, 20]\n      quote: "Ask');
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, 'lines: [15, 20]'), /outside sources\/fractions-guidance\/2024\.md \(19 lines\)/);
  });

  it('refuses a quote that does not match the cited lines, and accepts one that only wraps differently', async () => {
    const dir = await copyOfExample();
    await edit(dir, 'assertions.yaml', '"3.NF.1 Understand a fraction 1/b as', '"3.NF.1   Understand a\n        fraction 1/b as');
    const text = await edit(dir, 'assertions.yaml', 'from 0."', 'from 1."');
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, 'quote: "3.NF.2 Represent a fraction'), /does not match lines 9-9/);
  });

  it('refuses an assertion accepted before a cited version was reported', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', 'accepted: 2024-08-20\n  supersedes: [ratio-language-g6]', 'accepted: 2024-08-19\n  supersedes: [ratio-language-g6]');
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, 'accepted: 2024-08-19'), /before state-math-standards 2023 was reported \(2024-08-20\)/);
  });

  it('refuses a retraction before acceptance', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', 'retracted: 2024-08-20', 'retracted: 2024-01-14');
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, 'retracted: 2024-01-14'), /before it was accepted/);
  });

  it('refuses a supersedes naming an unknown assertion', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', 'supersedes: [number-line-g3]', 'supersedes: [number-line-g2]');
    await expectOnlyProblem(dir, 'assertions.yaml', lineOf(text, 'supersedes: [number-line-g2]'), /unknown assertion "number-line-g2"/);
  });

  it('refuses a supersession cycle, at each assertion on it', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'assertions.yaml', '- id: ratio-language-g6\n', '- id: ratio-language-g6\n  supersedes: [ratio-language-g6-2023]\n');
    const problems = await problemsOf(dir);
    expect(problems).toEqual([
      { file: 'assertions.yaml', line: lineOf(text, 'supersedes: [ratio-language-g6-2023]'), message: expect.stringMatching(/"ratio-language-g6" .*cycle/) as unknown },
      { file: 'assertions.yaml', line: lineOf(text, 'supersedes: [ratio-language-g6]'), message: expect.stringMatching(/"ratio-language-g6-2023" .*cycle/) as unknown },
    ]);
  });

  it('refuses an insight derived from an unknown assertion', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'insights.yaml', 'derivedFrom: [number-line-g3-2023,', 'derivedFrom: [number-line-g3-2024,');
    await expectOnlyProblem(dir, 'insights.yaml', lineOf(text, 'number-line-g3-2024'), /unknown assertion "number-line-g3-2024"/);
  });

  it('refuses an insight available before an assertion it derives from', async () => {
    const dir = await copyOfExample();
    const text = await edit(dir, 'insights.yaml', 'availableFrom: 2024-08-20', 'availableFrom: 2024-08-19');
    await expectOnlyProblem(dir, 'insights.yaml', lineOf(text, 'availableFrom: 2024-08-19'), /before "number-line-g3-2023" was accepted/);
  });

  it('collects every problem across files, sorted by file then line', async () => {
    const dir = await copyOfExample();
    await rm(join(dir, 'sources/fractions-guidance/2024.md'));
    const insights = await edit(dir, 'insights.yaml', 'availableFrom: 2024-08-20', 'availableFrom: 2024-08-19');
    await edit(dir, 'assertions.yaml', 'supersedes: [number-line-g3]', 'supersedes: [number-line-g2]');
    const assertions = await edit(dir, 'assertions.yaml', 'retracted: 2024-08-20', 'retracted: 2024-01-14');
    const manifest = await readFile(join(dir, 'pack.yaml'), 'utf8');
    const problems = await problemsOf(dir);
    expect(problems.map((p) => [p.file, p.line])).toEqual([
      ['assertions.yaml', lineOf(assertions, 'retracted: 2024-01-14')],
      ['assertions.yaml', lineOf(assertions, 'supersedes: [number-line-g2]')],
      ['insights.yaml', lineOf(insights, 'availableFrom: 2024-08-19')],
      ['pack.yaml', lineOf(manifest, "version: '2024'")],
    ]);
  });

  it('reports the problems of each file on its own even when another file is invalid', async () => {
    const dir = await copyOfExample();
    const manifest = await edit(dir, 'pack.yaml', 'pack: 1', 'pack: 2');
    const insights = await edit(dir, 'insights.yaml', '- id: fractions-above-one\n', '- id: fractions-above-one\n  weight: 2\n');
    const problems = await problemsOf(dir);
    expect(problems.map((p) => [p.file, p.line])).toEqual([
      ['insights.yaml', lineOf(insights, 'weight: 2')],
      ['pack.yaml', lineOf(manifest, 'pack: 2')],
    ]);
  });
});
