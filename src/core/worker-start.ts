/**
 * Starts this library's worker threads under any way of running Node. A worker inherits the parent's
 * options (process.execArgv) by default, and some of them describe the parent's own entry:
 * `--input-type` (given with `-e` or a script on stdin) makes a worker started from a file fail with
 * ERR_INPUT_TYPE_NOT_ALLOWED before its first line, and a caller waiting on that worker would wait
 * for ever; `-e` / `-p` carry the parent's code.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

const WITH_VALUE = new Set(['--input-type', '-e', '--eval', '-p', '--print']);
const WITH_EQUALS = ['--input-type=', '--eval=', '--print='];

/** The parent's options less its entry's (with their values), or undefined where it has none: then the worker inherits them as they are. */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] | undefined {
  const kept: string[] = [];
  let dropped = false;
  for (let i = 0; i < execArgv.length; i++) {
    const option = execArgv[i]!;
    if (WITH_VALUE.has(option)) {
      i++; // and its value
      dropped = true;
    } else if (WITH_EQUALS.some((p) => option.startsWith(p))) {
      dropped = true;
    } else {
      kept.push(option);
    }
  }
  return dropped ? kept : undefined;
}

/**
 * `new Worker(url, options)` with the options workerExecArgv leaves. An explicit list is validated
 * where an inherited one is not, and V8 flags (--liftoff-only, --max-old-space-size) are refused in
 * it (ERR_WORKER_INVALID_EXEC_ARGV): those are the process's anyway, so the worker then starts with none.
 */
export function startWorker(url: URL, options: WorkerOptions): Worker {
  const execArgv = workerExecArgv();
  if (execArgv === undefined) return new Worker(url, options);
  try {
    return new Worker(url, { ...options, execArgv });
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
    return new Worker(url, { ...options, execArgv: [] });
  }
}
