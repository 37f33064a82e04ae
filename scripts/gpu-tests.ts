/**
 * `npm run test:gpu`: the GPU test files, one at a time, where a GPU is usable; elsewhere one line
 * saying why they are skipped (instead of node:test's one skip line per test).
 *   node dist/scripts/gpu-tests.js [files or folders...]   (default: dist/test/gpu/)
 */
import { spawnSync } from 'node:child_process';
import { probeCuda } from '../src/cuda/runtime/probe.js';

const probe = probeCuda();
if (!probe.usable) {
  console.log(`GPU tests skipped: no usable GPU (${probe.reason})`);
} else {
  const targets = process.argv.length > 2 ? process.argv.slice(2) : ['dist/test/gpu/'];
  const run = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...targets], { stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
}
