/**
 * CPU time of the PostgreSQL backends serving one database, from Linux's /proc: a backend's process title names its
 * database ("postgres: USER DATABASE HOST(PORT) STATE"), so the server's work for this benchmark is told apart from
 * what other sessions on the same server do. Background processes (WAL writer, checkpointer) are shared and not
 * counted. Elsewhere than Linux every reading is undefined.
 */
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: the unit of /proc CPU times. 100 on every mainstream Linux build.
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) of each process whose title names `database`, by pid; undefined when /proc is unreadable. */
export function backendSnapshot(database: string): Map<string, number> | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  const seconds = new Map<string, number>();
  for (const pid of entries) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!title.startsWith('postgres:') || !title.split(/[\s\0]+/).includes(database)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesized command name; utime and stime are the 12th and 13th of them.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return seconds;
}

/**
 * CPU seconds the backends used between two snapshots: each backend's growth, a new one's whole time. A backend that
 * ended in between (the pool closes idle connections) is left out: what it used after the first snapshot is lost,
 * which under load is little, since a busy connection is not idle.
 */
export function backendSecondsBetween(before: Map<string, number>, after: Map<string, number>): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}
