/**
 * What docs/packs.md says is available at a cutoff, computed from the generated pack itself, to check the
 * gateway's counts against: an assertion is available when every source version it cites is published and reported
 * on or before the cutoff, it is accepted on or before it, and neither its retraction nor the acceptance of an
 * assertion that supersedes it is on or before it.
 */
import type { GeneratedPack } from '../pack/model.ts';

/** The ids of the assertions available at `asOf`. */
export function availableAssertions(pack: GeneratedPack, asOf: string): Set<string> {
  const versions = new Map<string, { published: string; reported: string }>();
  for (const source of pack.sources) for (const v of source.versions) versions.set(`${source.id}/${v.label}`, v);
  const supersededOn = new Map<string, string>();
  for (const a of pack.assertions) {
    for (const id of a.supersedes) {
      const known = supersededOn.get(id);
      if (known === undefined || a.accepted < known) supersededOn.set(id, a.accepted);
    }
  }
  const available = new Set<string>();
  for (const a of pack.assertions) {
    if (a.accepted > asOf || (a.retracted !== undefined && a.retracted <= asOf)) continue;
    const superseded = supersededOn.get(a.id);
    if (superseded !== undefined && superseded <= asOf) continue;
    const cited = a.evidence.every((e) => {
      const v = versions.get(`${e.source}/${e.version}`);
      return v !== undefined && v.published <= asOf && v.reported <= asOf;
    });
    if (cited) available.add(a.id);
  }
  return available;
}

/** Characters a search of assertions reads: statements, quotes and the titles of the cited sources (each once per assertion). */
export function indexedCharacters(pack: GeneratedPack): number {
  const titles = new Map(pack.sources.map((s) => [s.id, s.title]));
  let chars = 0;
  for (const a of pack.assertions) {
    chars += a.statement.length;
    for (const e of a.evidence) chars += e.quote.length;
    for (const id of new Set(a.evidence.map((e) => e.source))) chars += titles.get(id)?.length ?? 0;
  }
  return chars;
}
