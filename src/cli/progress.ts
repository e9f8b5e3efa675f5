/**
 * A progress bar with rate and ETA on a terminal; plain, throttled lines when output is not a TTY
 * (CI logs, pipes), so long work always shows it is moving.
 */
export interface ProgressBar {
  update(done: number, extra?: string): void;
  finish(summary?: string): void;
}

export function progressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const started = Date.now();
  const tty = Boolean(stream.isTTY);
  let lastPlain = 0;
  let lastDone = 0;
  const line = (done: number, extra?: string) => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const rate = done / seconds;
    const eta = rate > 0 && total > done ? Math.ceil((total - done) / rate) : 0;
    const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
    const width = 24;
    const filled = total > 0 ? Math.round((done / total) * width) : width;
    const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
    return `${label} [${bar}] ${pct}% ${done}/${total} ${rate.toFixed(1)}/s ETA ${eta}s${extra ? ` ${extra}` : ''}`;
  };
  return {
    update(done, extra) {
      lastDone = done;
      if (tty) {
        stream.write(`\r${line(done, extra)}\x1b[K`);
      } else if (Date.now() - lastPlain >= 2_000 || done === total) {
        lastPlain = Date.now();
        stream.write(`${line(done, extra)}\n`);
      }
    },
    finish(summary) {
      if (tty) stream.write(`\r${line(lastDone)}\x1b[K\n`);
      if (summary) stream.write(`${summary}\n`);
    },
  };
}
