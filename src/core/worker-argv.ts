/**
 * The Node options a worker thread of this library starts with: the parent's (a worker inherits
 * process.execArgv by default), less those that describe the parent's own entry. `--input-type`
 * (given with `-e` or a script on stdin) makes a worker started from a file fail with
 * ERR_INPUT_TYPE_NOT_ALLOWED before its first line, and a caller waiting on that worker would wait
 * for ever; `-e` / `-p` carry the parent's code. Every other option (memory limits, loaders,
 * conditions) is kept.
 */
const WITH_VALUE = new Set(['--input-type', '-e', '--eval', '-p', '--print']);

export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const option = execArgv[i]!;
    if (WITH_VALUE.has(option)) {
      i++; // and its value
      continue;
    }
    if (['--input-type=', '--eval=', '--print='].some((p) => option.startsWith(p))) continue;
    kept.push(option);
  }
  return kept;
}
