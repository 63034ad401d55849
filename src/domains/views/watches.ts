import type { Sql } from '../../db/port.ts';
import { newId } from '../../kernel/ids.ts';
import { MAX_FINDINGS_PER_WATCH, MAX_WATCH_MATCHES } from './contract.ts';
import { runView } from './query.ts';
import * as store from './store.ts';

/**
 * Runs one watch now, in `sql`: its view over its scope's slice, compared with what the last run matched. With
 * `record`, each record that began to match, changed while matching or stopped matching becomes a finding; without
 * it (a new watch, a new latest version of its view) the run only sets the baseline the next run compares with. A
 * view that matches more than MAX_WATCH_MATCHES records cannot be compared: the watch is marked over its limit,
 * records nothing, and its next run within the limit sets a new baseline rather than report everything as new.
 */
export async function runWatch(sql: Sql, watch: store.WatchToRun, at: Date, record: boolean): Promise<void> {
  const page = await runView(sql, watch.slice, watch.definition, { limit: MAX_WATCH_MATCHES });
  if (page.truncated) {
    await store.replaceMatches(sql, watch.id, []);
    await store.markEvaluated(sql, watch.id, at, true, 0);
    return;
  }
  let dropped = 0;
  if (record && !watch.overLimit) {
    const previous = await store.loadMatches(sql, watch.id);
    const findings: store.NewFinding[] = [];
    const now = new Set<string>();
    for (const item of page.items) {
      now.add(item.record.id);
      const before = previous.get(item.record.id);
      if (!before) findings.push({ id: newId(at.getTime()), change: 'matched', record: item.record });
      else if (before.hash !== item.hash) findings.push({ id: newId(at.getTime()), change: 'changed', record: item.record });
    }
    const gone = [...previous].filter(([id]) => !now.has(id)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, before] of gone) findings.push({ id: newId(at.getTime()), change: 'unmatched', record: before.record });
    dropped = await store.insertFindings(sql, { id: watch.id, vaultId: watch.slice.vaultId, version: watch.version }, findings, at, MAX_FINDINGS_PER_WATCH);
  }
  await store.replaceMatches(sql, watch.id, page.items);
  await store.markEvaluated(sql, watch.id, at, false, dropped);
}

/**
 * Runs the watches whose scope a change of a vault's notes may have changed (in the change's transaction, after its
 * knowledge was compiled): those whose scope's folders hold one of the paths the change left or removed. Tags are
 * not checked here (a note may just have lost the tag that put it in a scope): running a watch that nothing changed
 * for costs a query and records nothing, while missing one would lose a finding.
 */
export async function evaluateWatches(sql: Sql, vaultId: string, paths: readonly string[], at: Date): Promise<number> {
  if (paths.length === 0) return 0;
  const watches = await store.watchesOfVault(sql, vaultId);
  let ran = 0;
  for (const watch of watches) {
    const prefixes = watch.slice.pathPrefixes;
    if (prefixes.length > 0 && !paths.some((path) => prefixes.some((prefix) => path.startsWith(prefix)))) continue;
    await runWatch(sql, watch, at, true);
    ran++;
  }
  return ran;
}
