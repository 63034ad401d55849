/** The machine a benchmark ran on, printed at the top of every section so numbers are read in context. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';

/** Facts about this machine and runtime, as Markdown list items. */
export function machineFacts(): string[] {
  let cpu = 'unknown CPU';
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) cpu = match[1].trim();
  } catch {
    // Not Linux: keep "unknown CPU".
  }
  return [
    `- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `- CPU: ${cpu}, ${availableParallelism()} cores`,
    `- RAM: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node.js ${process.version} on ${process.platform}/${process.arch}`,
    `- Speed check: ${speedCheck()}`,
  ];
}

/** Where the timed loop's result goes, outside it, so that the loop cannot be optimized away. */
const sink = { value: 0 };

/**
 * The JavaScript half of the speed check: additions in a local accumulator. (A first version added into a
 * module-level variable; V8 optimized that loop in some processes and not in others, so it took 90 or 510 ms on
 * the same machine. A local is optimized the same way every time.)
 */
function additions(count: number): number {
  let sum = 0;
  for (let i = 0; i < count; i++) sum = (sum + i) | 0;
  return sum;
}

/**
 * Two single-thread timings taken as the run starts, best of three each, so that runs on one machine can be compared:
 * a shared virtual machine's speed moves from hour to hour (on the development VM, by more than 2x between days),
 * and every other figure moves with it.
 */
function speedCheck(): string {
  const best = (work: () => void) => {
    let fastest = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 3; k++) {
      const started = performance.now();
      work();
      fastest = Math.min(fastest, performance.now() - started);
    }
    return fastest;
  };
  const block = Buffer.alloc(64 * 1024 * 1024, 7);
  const hashMs = best(() => createHash('sha256').update(block).digest());
  const loopMs = best(() => {
    sink.value = additions(100_000_000);
  });
  return `SHA-256 of 64 MiB in ${hashMs.toFixed(0)} ms, a JavaScript loop of 10^8 additions into a local in ${loopMs.toFixed(0)} ms (best of three, one thread, lower is faster)`;
}
