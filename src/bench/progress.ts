/** Progress lines of long benchmark runs. */
/** Writes a progress line to stderr (never to stdout, which holds the table). */
export function progress(message: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${message}`);
  else process.stderr.write(`${message}\n`);
}
export function progressDone(): void {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
}
