/**
 * `npm test`'s runner: every `*.test.js` under the given folders of dist/test, handed to
 * `node --test` as files. Node 20 accepts folders on the command line, Node 22 and later accept
 * only files and globs, and Node 20 has no globs: an explicit file list works on all three.
 *   node dist/scripts/run-tests.js [--concurrency N] <folder under dist/test> ...
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceOf, testFiles } from './gpu-suite/files.js';

const testRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'test');

function main(argv: string[]): number {
  let concurrency = 2;
  const folders: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--concurrency') {
      concurrency = Number(argv[++i]);
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency: expected a positive integer, got ${argv[i]}`);
    } else folders.push(arg);
  }
  if (folders.length === 0) throw new Error('run-tests: name at least one folder under dist/test (core, cpu, cuda, ...)');
  const files = folders.flatMap((folder) => {
    const path = join(testRoot, folder);
    const list = testFiles(path, (stale) => console.log(`left out ${relative(process.cwd(), stale)}: its source ${sourceOf(stale)} is gone (a stale build output)`));
    if (list.length === 0) throw new Error(`run-tests: no *.test.js under ${relative(process.cwd(), path)} (built? run tsc first)`);
    return list;
  });
  const run = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files.map((f) => relative(process.cwd(), f))], { stdio: 'inherit' });
  return run.status ?? 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
