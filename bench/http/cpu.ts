/**
 * CPU time from Linux's /proc, to say where a measured run's CPU went: the kgate server process, the PostgreSQL
 * server's processes, and the whole machine. Elsewhere every reading is undefined and the report shows a dash.
 */
import { readFileSync, readdirSync } from 'node:fs';

// USER_HZ: the unit of /proc CPU times. 100 on every mainstream Linux build.
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) of one process, from /proc/PID/stat; undefined when unreadable. */
function processSeconds(pid: number | string): { comm: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces; fields after it are space-separated.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line: 12th and 13th after the command name.
    return { comm, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** A reading of the counters a run is measured between. */
export interface CpuReading {
  at: number;
  /** This process (the load generator), CPU seconds. */
  self: number;
  server: number | undefined;
  postgres: number | undefined;
  machineBusy: number | undefined;
  machineTotal: number | undefined;
}

function machine(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0); // idle + iowait
    return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

function postgresSeconds(): number | undefined {
  try {
    let sum = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const p = processSeconds(entry);
      if (p?.comm === 'postgres') sum += p.seconds;
    }
    return sum;
  } catch {
    return undefined;
  }
}

/** Reads the counters now. */
export function readCpu(serverPid: number): CpuReading {
  const m = machine();
  const own = process.cpuUsage();
  return { at: performance.now(), self: (own.user + own.system) / 1e6, server: processSeconds(serverPid)?.seconds, postgres: postgresSeconds(), machineBusy: m?.busy, machineTotal: m?.total };
}

/** Where the CPU of a run went, between two readings. */
export interface CpuUse {
  /** The load generator (this process), CPU seconds per wall second. */
  loadGeneratorCores: number;
  /** kgate server process: CPU seconds per wall second (1 = one core fully busy). */
  serverCores: number | undefined;
  /** All `postgres` processes on this machine, the same way. */
  postgresCores: number | undefined;
  /** Share of all cores busy, 0 to 1. */
  machineBusy: number | undefined;
}

/** The CPU use between `before` and `after`. */
export function cpuBetween(before: CpuReading, after: CpuReading): CpuUse {
  const wall = (after.at - before.at) / 1000;
  const perWall = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : (b - a) / wall);
  const busy = after.machineBusy !== undefined && before.machineBusy !== undefined ? after.machineBusy - before.machineBusy : undefined;
  const total = after.machineTotal !== undefined && before.machineTotal !== undefined ? after.machineTotal - before.machineTotal : undefined;
  return {
    loadGeneratorCores: (after.self - before.self) / wall,
    serverCores: perWall(before.server, after.server),
    postgresCores: perWall(before.postgres, after.postgres),
    machineBusy: busy !== undefined && total ? busy / total : undefined,
  };
}
