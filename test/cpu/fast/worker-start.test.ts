/**
 * The worker threads of the CPU pool (and of the compile pool) start under any way of running Node:
 * a worker inherits the parent's options, and `--input-type` (from `node --input-type=module -e` or a
 * script on stdin) made it fail before its first line while the caller waited on it for ever.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { workerExecArgv } from '../../../src/core/worker-start.js';

test('workerExecArgv drops the options of the parent\'s own entry, with their values, and keeps the rest; none to drop: inherit', () => {
  assert.deepEqual(workerExecArgv(['--input-type=module', '--stack-size=2000', '-e', 'console.log(1)']), ['--stack-size=2000']);
  assert.deepEqual(workerExecArgv(['--input-type', 'module', '-p', '1 + 1', '--max-old-space-size=512']), ['--max-old-space-size=512']);
  assert.deepEqual(workerExecArgv(['--eval=1', '--print=2', '--conditions=dev', '--import', 'x.js']), ['--conditions=dev', '--import', 'x.js']);
  assert.equal(workerExecArgv(['--liftoff-only', '--conditions=dev']), undefined);
  assert.equal(workerExecArgv([]), undefined);
});

/** Runs `script` as `node [v8Flag] --input-type=module [-e]` (stdin where `stdin`), two CPU threads; its exit code and output. */
function runModule(script: string, stdin: boolean, v8Flag?: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const args = [...(v8Flag === undefined ? [] : [v8Flag]), ...(stdin ? ['--input-type=module'] : ['--input-type=module', '-e', script])];
    const child = execFile(process.execPath, args, { env: { ...process.env, MYRIAD_THREADS: '2' }, timeout: 30_000 }, (error, out) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, out });
    });
    if (stdin) child.stdin!.end(script);
    else child.stdin!.end();
  });
}

test('a batch that spreads over the CPU workers returns under node --input-type=module -e, beside a V8 flag', async () => {
  const index = new URL('../../../src/index.js', import.meta.url).href;
  // 64 identity matrices of order 40: enough work for the pool to split (potrf spreads from a few matrices).
  const script = `import { open, strided } from ${JSON.stringify(index)};
const n = 40, count = 64, a = new Float64Array(n * n * count);
for (let m = 0; m < count; m++) for (let i = 0; i < n; i++) a[m * n * n + i * n + i] = 4;
const { info } = open({ backend: 'cpu' }).potrf({ a: strided(a, { rows: n, count }) });
console.log(info.every((x) => x === 0) && a[0] === 2 && a[(count - 1) * n * n + n * n - 1] === 2 ? 'ok' : 'wrong');`;
  // -e with a V8 flag beside it, which a worker's explicit options may not hold (it then starts with
  // none). A script on stdin leaves --input-type alone in the parent's options: the same path.
  const runs = [[false, '--liftoff-only']] as const;
  const results = await Promise.all(runs.map(([stdin, v8Flag]) => runModule(script, stdin, v8Flag)));
  results.forEach(({ code, out }, i) => {
    assert.equal(code, 0, `exit ${code} (${runs[i]![0] ? 'stdin' : '-e'} ${runs[i]![1] ?? ''}): ${out}`);
    assert.equal(out.trim(), 'ok');
  });
});
