import { cliConsole } from './console.ts';

/** Progress of a long command on standard error: a bar on a terminal, plain lines otherwise (pipes, CI, logs). */
export interface Progress {
  update(done: number): void;
  finish(): void;
}

/** Plain progress lines come at most this often. */
const LINE_EVERY_MS = 2000;

/**
 * On a terminal, draws `label [#####-----] done/total` at most every 100 ms; elsewhere writes `label: done/total`
 * lines at most every 2 s, and the last one at the end.
 */
export function createProgress(label: string, total: number): Progress {
  const console = cliConsole();
  const stream = { write: (text: string) => console.write('stderr', text) };
  if (total === 0) return { update() {}, finish() {} };
  if (!console.isTTY) {
    let last = Date.now();
    return {
      update(done) {
        if (Date.now() - last < LINE_EVERY_MS) return;
        last = Date.now();
        stream.write(`${label}: ${done}/${total}\n`);
      },
      finish() {
        stream.write(`${label}: ${total}/${total}\n`);
      },
    };
  }
  const width = 30;
  let last = 0;
  const draw = (done: number) => {
    const filled = Math.round((done / total) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
  };
  return {
    update(done) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      draw(done);
    },
    finish() {
      draw(total);
      stream.write('\n');
    },
  };
}
