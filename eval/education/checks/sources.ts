/**
 * Source visibility: the answer cites only sources the educator selected (every id under a `sources`, `sourceIds`
 * or `citations` field is one that was sent), and cites at least one of them when sources were sent (unless the
 * scenario says citing is not expected). In prose, a sent id named anywhere counts as cited, and a bracketed
 * citation (`[source: id]`) must name a sent id.
 */
import { noAnswer, result, type Check } from './types.ts';
import { referencesIn, requestRefs, stringsOf, valuesUnder } from './text.ts';

/** A citation written in prose: `[source: id]`, `[sources: a, b]`, `[src: id]`. */
const PROSE_CITATION = /\[(?:sources?|src):\s*([^\]]{1,400})\]/gi;

const SOURCE_KEYS = new Set(['sources', 'source', 'sourceIds', 'sourceId', 'citations', 'citedSources']);

/** See the module comment. */
export const sourceVisibility: Check = (scenario, request, envelope, facts) => {
  const failed = noAnswer('source-visibility', envelope, facts);
  if (failed) return failed;
  const sent = scenario.expect.sources ?? requestRefs(request, ['sources', 'selectedSources']);
  const texts = stringsOf(envelope.data).map(({ text }) => text);
  const bracketed = texts.flatMap((text) => [...text.matchAll(PROSE_CITATION)].flatMap((match) => match[1]!.split(',').map((id) => id.trim())));
  const named = sent.filter((id) => texts.some((text) => text.includes(id)));
  const cited = [...new Set([...valuesUnder(envelope.data, (key) => SOURCE_KEYS.has(key)).flatMap(({ value }) => referencesIn(value)), ...bracketed, ...named])];
  const unselected = cited.filter((id) => !sent.includes(id));
  const mustCite = scenario.expect.citeSources ?? sent.length > 0;
  const citedSent = cited.filter((id) => sent.includes(id));
  const details = { sent, cited, unselected };
  if (unselected.length > 0) return result('source-visibility', 'fail', `Cites sources that were not selected: ${unselected.join(', ')}.`, details);
  if (mustCite && citedSent.length === 0) return result('source-visibility', 'fail', 'Cites none of the selected sources.', details);
  if (sent.length === 0 && cited.length === 0) return result('source-visibility', 'pass', 'No sources were selected and none is cited.', details);
  return result('source-visibility', 'pass', `Cites ${citedSent.length} of ${sent.length} selected sources and no other.`, details);
};
