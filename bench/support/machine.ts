/** The machine a benchmark ran on, printed at the top of every section so numbers are read in context. */
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
  ];
}
