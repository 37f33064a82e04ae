/** Warm-up before timing: at least this many calls and this many milliseconds (compile, load, first touch, clocks). */
export const WARMUP = { calls: 3, ms: 20 } as const;

/** Median of repeated timings (robust to the odd slow run; MAGMA times once: don't). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Writes a progress line to stderr (never to stdout, which holds the table). */
export function progress(message: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${message}`);
  else process.stderr.write(`${message}\n`);
}
export function progressDone(): void {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
}
