/** A one-line progress bar on a terminal; silent when the stream is not a TTY (pipes, CI, logs). */
export interface Progress {
  update(done: number): void;
  finish(): void;
}

/** Draws `label [#####-----] done/total` on `stream`, at most every 100 ms. */
export function createProgress(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY || total === 0) return { update() {}, finish() {} };
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
