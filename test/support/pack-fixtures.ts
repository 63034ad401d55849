/**
 * Packs for the published-intelligence tests, with no database: the example pack as a StoredPack, small packs
 * declared in a few lines, a seeded random pack, and the same pack cut at a cutoff (every item dated after it
 * removed), which is what "nothing after the cutoff leaks" compares against.
 */
import { fileURLToPath } from 'node:url';
import { loadPack } from '../../src/domains/packs/format/index.ts';
import type { PackAssertion, PackInsight, ParsedPack } from '../../src/domains/packs/format/index.ts';
import type { CalendarDate, PackVersionInfo, StoredPack, StoredSource } from '../../src/domains/packs/contract.ts';
import { seededRandom } from './seeded-random.ts';

export { seededRandom };

/** The example pack's folder. */
export const EXAMPLE_PACK_DIR = fileURLToPath(new URL('../../examples/packs/k8-math', import.meta.url));

/** A pack version's record, as a store would load it. */
export function packInfo(overrides: Partial<PackVersionInfo> = {}): PackVersionInfo {
  return {
    versionId: 'version-1',
    packId: 'pack-1',
    productId: 'product-1',
    productSlug: 'tutor',
    packSlug: 'k8-math',
    version: 1,
    title: 'A test pack',
    publishedAt: new Date('2025-01-02T03:04:05.000Z'),
    ...overrides,
  };
}

/** The lines of a text, as evidence counts them: a final line break does not start another line. */
function lineCountOf(text: string): number {
  const lines = text.split(/\r\n|\n|\r/);
  return lines.length > 1 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
}

/** A parsed pack as a store loads it: texts dropped, each version's line count kept. */
export function storedPackOf(parsed: ParsedPack, info: PackVersionInfo = packInfo({ title: parsed.title, packSlug: parsed.slug, productSlug: parsed.product })): StoredPack {
  return {
    info,
    sources: parsed.sources.map((source) => ({
      id: source.id,
      title: source.title,
      citation: source.citation,
      versions: source.versions.map(({ text, ...version }) => ({ ...version, lineCount: lineCountOf(text) })),
    })),
    assertions: parsed.assertions,
    insights: parsed.insights,
  };
}

/** The example pack k8-math, loaded and validated, as a StoredPack. */
export async function exampleStoredPack(): Promise<StoredPack> {
  const loaded = await loadPack(EXAMPLE_PACK_DIR);
  if (!loaded.ok) throw new Error(`the example pack does not load: ${JSON.stringify(loaded.problems)}`);
  return storedPackOf(loaded.pack);
}

/** A small pack declared tersely: each assertion cites [source, version] pairs (evidence line 1, a made-up quote). */
export interface SmallPackSpec {
  sources: { id: string; title?: string; versions: { version: string; published: CalendarDate; reported: CalendarDate }[] }[];
  assertions: { id: string; statement?: string; accepted: CalendarDate; retracted?: CalendarDate; supersedes?: string[]; cites: [string, string][]; quote?: string }[];
  insights?: { id: string; statement?: string; availableFrom: CalendarDate; derivedFrom: string[] }[];
}

/** The StoredPack a SmallPackSpec declares. */
export function smallPack(spec: SmallPackSpec, info: PackVersionInfo = packInfo()): StoredPack {
  return {
    info,
    sources: spec.sources.map((source) => ({
      id: source.id,
      title: source.title ?? `Source ${source.id}`,
      citation: `https://example.test/${source.id}`,
      versions: source.versions.map((version, v) => ({ ...version, extraction: v + 1, lineCount: 10 })),
    })),
    assertions: spec.assertions.map((assertion) => ({
      id: assertion.id,
      statement: assertion.statement ?? `Statement ${assertion.id}.`,
      accepted: assertion.accepted,
      ...(assertion.retracted ? { retracted: assertion.retracted } : {}),
      ...(assertion.supersedes ? { supersedes: assertion.supersedes } : {}),
      evidence: assertion.cites.map(([source, version]) => ({ source, version, lines: [1, 1] as [number, number], quote: assertion.quote ?? `Quote for ${assertion.id}.` })),
    })),
    insights: (spec.insights ?? []).map((insight) => ({ statement: `Insight ${insight.id}.`, ...insight })),
  };
}

/** The day `days` after `date` (negative: before). */
export function shiftDay(date: CalendarDate, days: number): CalendarDate {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

/**
 * The pack as it would have been published holding only what is dated on or before `cutoff`: source versions
 * published or reported later are removed (and sources left without versions), assertions accepted later or citing
 * a removed version, later retraction dates, supersessions of removed assertions, insights available later or
 * derived from a removed assertion.
 */
export function packAtCutoff(pack: StoredPack, cutoff: CalendarDate): StoredPack {
  const sources: StoredSource[] = pack.sources
    .map((source) => ({ ...source, versions: source.versions.filter((version) => version.published <= cutoff && version.reported <= cutoff) }))
    .filter((source) => source.versions.length > 0);
  const kept = new Set(sources.flatMap((source) => source.versions.map((version) => `${source.id}\u0000${version.version}`)));
  const assertions: PackAssertion[] = [];
  const keptIds = new Set<string>();
  for (const assertion of pack.assertions) {
    if (assertion.accepted > cutoff) continue;
    if (!assertion.evidence.every((evidence) => kept.has(`${evidence.source}\u0000${evidence.version}`))) continue;
    keptIds.add(assertion.id);
  }
  for (const assertion of pack.assertions) {
    if (!keptIds.has(assertion.id)) continue;
    const { retracted, supersedes, ...rest } = assertion;
    const stillSupersedes = (supersedes ?? []).filter((id) => keptIds.has(id));
    assertions.push({
      ...rest,
      ...(retracted !== undefined && retracted <= cutoff ? { retracted } : {}),
      ...(stillSupersedes.length > 0 ? { supersedes: stillSupersedes } : {}),
    });
  }
  const insights: PackInsight[] = pack.insights.filter((insight) => insight.availableFrom <= cutoff && insight.derivedFrom.every((id) => keptIds.has(id)));
  return { info: pack.info, sources, assertions, insights };
}

/** Words the random packs' statements, quotes and titles are made of, and the tests' questions. */
export const RANDOM_PACK_WORDS = ['fraction', 'ratio', 'number', 'line', 'grade', 'model', 'area', 'length', 'compare', 'equal', 'part', 'whole', 'unit', 'tape', 'diagram', 'calculator'];

/**
 * A random but valid pack (accepted never before a cited version's reporting date, retraction never before
 * acceptance, supersession only of earlier assertions, insights never before their assertions' acceptance), dated
 * over 2024, with publication dates sometimes after reporting dates and overlapping supersessions and retractions.
 */
export function randomPack(seed: number, size: { sources: number; assertions: number; insights: number }): StoredPack {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const day = (from: CalendarDate, span: number) => shiftDay(from, Math.floor(random() * span));
  const text = (count: number) => Array.from({ length: count }, () => pick(RANDOM_PACK_WORDS)).join(' ');
  const spec: SmallPackSpec = { sources: [], assertions: [], insights: [] };
  for (let s = 0; s < size.sources; s++) {
    const versions = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, v) => ({ version: `v${v + 1}`, published: day('2024-01-01', 300), reported: day('2024-01-01', 300) }));
    spec.sources.push({ id: `source-${s}`, title: `Source ${text(2)}`, versions });
  }
  for (let a = 0; a < size.assertions; a++) {
    const cites: [string, string][] = [];
    let latestReported = '2024-01-01';
    for (let c = 0; c < 1 + Math.floor(random() * 2); c++) {
      const source = pick(spec.sources);
      const version = pick(source.versions);
      cites.push([source.id, version.version]);
      if (version.reported > latestReported) latestReported = version.reported;
    }
    const accepted = day(latestReported, 40);
    const supersedes = a > 0 && random() < 0.3 ? [`assertion-${Math.floor(random() * a)}`] : undefined;
    spec.assertions.push({
      id: `assertion-${a}`,
      statement: text(4 + Math.floor(random() * 8)),
      quote: text(6 + Math.floor(random() * 10)),
      accepted,
      ...(random() < 0.15 ? { retracted: day(accepted, 120) } : {}),
      ...(supersedes ? { supersedes } : {}),
      cites,
    });
  }
  for (let i = 0; i < size.insights; i++) {
    const derivedFrom = [...new Set([pick(spec.assertions).id, pick(spec.assertions).id])];
    const latest = derivedFrom.map((id) => spec.assertions.find((assertion) => assertion.id === id)!.accepted).sort().at(-1)!;
    spec.insights!.push({ id: `insight-${i}`, availableFrom: day(latest, 60), derivedFrom });
  }
  return smallPack(spec);
}

/** Every date an item of the pack carries, each once, sorted. */
export function datesOf(pack: StoredPack): CalendarDate[] {
  const dates = new Set<CalendarDate>();
  for (const source of pack.sources) for (const version of source.versions) dates.add(version.published).add(version.reported);
  for (const assertion of pack.assertions) {
    dates.add(assertion.accepted);
    if (assertion.retracted) dates.add(assertion.retracted);
  }
  for (const insight of pack.insights) dates.add(insight.availableFrom);
  return [...dates].sort();
}
