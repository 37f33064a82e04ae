/**
 * The README's TypeScript examples: test/readme/example-N.ts hold them verbatim (checked here, so
 * the two cannot drift), the build type-checks them against the package's own name ('myriad'),
 * and this runs the first two with their printed values captured whole and compared with the CPU
 * backend's and with values by hand (test/helpers/readme-checks.ts), and the bridge example (5)
 * against its printed values: the three in one child process, in that order (the first in a
 * fresh one); test/gpu/readme.test.ts runs the first four on GPUs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkExample1, checkExample2 } from '../helpers/readme-checks.js';
import { ranOrThrow, runExamples, type ExampleRun } from '../helpers/readme-run.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The ```ts blocks of README.md, in order. */
function readmeExamples(): string[] {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Examples 1, 2 and 5, run once (one child process) when the first test asks. */
let runs: (ExampleRun | Error)[] | undefined;
const run = (n: 1 | 2 | 5): ExampleRun => ranOrThrow((runs ??= runExamples([1, 2, 5]))[[1, 2, 5].indexOf(n)]!);

describe('README examples', () => {
  it('test/readme/ holds every ts block of the README verbatim', () => {
    const blocks = readmeExamples();
    assert.equal(blocks.length, 5);
    blocks.forEach((block, i) => {
      const file = readFileSync(join(root, 'test', 'readme', `example-${i + 1}.ts`), 'utf8');
      assert.equal(file.slice(file.indexOf('\n') + 1), block, `example-${i + 1}.ts differs from the README's block ${i + 1}`);
    });
  });
  it('the first example runs and prints what its comments say: values, against the CPU backend (and its CUDA branch where \'auto\' picks CUDA)', () => {
    const first = run(1);
    assert.match(first.stdout, /\[ 2, 0, 1, 1\.414\d* \].*\[ -0\.125, 0\.75 \]/);
    checkExample1(first, 'either');
  });
  it('the host-path example runs its three steps: B[0] and info as the CPU backend computes them', () => {
    const hostPath = run(2);
    assert.match(hostPath.stdout, /^1 0\.25 true\n2 0\.0625 true\n3 0\.015625 true$/m);
    checkExample2(hostPath);
  });
  it('the bridge example runs and prints what its comments say', () => {
    assert.deepEqual(run(5).calls.map((args) => Array.from(args[0] as Float64Array)), [[3, 1, 2, 2], [4, 1, 4, 2], [1, 2, 3, 4]]);
  });
});
