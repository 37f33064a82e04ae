/**
 * The README examples' printed values (captured whole by readme-run.ts) against the same
 * computations on the CPU backend (or by hand where the README states the numbers), shared by
 * test/core/readme.test.ts (whatever backend 'auto' picks) and test/gpu/readme.test.ts (CUDA).
 */
import assert from 'node:assert/strict';
import { cpuContext } from '../../src/api/context.js';
import { strided } from '../../src/core/batch.js';
import { maxRelativeDifference, type ExampleRun, type Logged } from './readme-run.js';

const EPS = 2 ** -52;

function floats(x: Logged | undefined, what: string): Float64Array {
  assert.ok(x instanceof Float64Array, `${what}: expected a Float64Array, got ${Object.prototype.toString.call(x)}`);
  return x;
}
function ints(x: Logged | undefined, what: string): Int32Array {
  assert.ok(x instanceof Int32Array, `${what}: expected an Int32Array, got ${Object.prototype.toString.call(x)}`);
  return x;
}

/** Example 1's data: 100,000 identity matrices of 8 x 8 and right-hand sides of ones. */
function example1Data(): { A: Float64Array; B: Float64Array; n: number; count: number } {
  const n = 8, count = 100_000;
  const A = new Float64Array(n * n * count);
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) A[i * n * n + j * (n + 1)] = 1;
  return { A, B: new Float64Array(n * count).fill(1), n, count };
}

/**
 * Example 1: the array level's [2, 0, 1, sqrt 2] and [-0.125, 0.75] (by hand: [4 2; 2 3] = L L^T,
 * A^-1 [1, 2] = [3 -2; -2 4] [1, 2] / 8); the LAPACK level's count of failures as the CPU's; and,
 * where it took the CUDA branch, X and info downloaded from the device as the CPU's posv gives
 * them (the same two calls, the second on the first's outputs).
 */
export function checkExample1(run: ExampleRun, gpuBranch: 'required' | 'either'): void {
  const c = run.calls;
  const l = floats(c[0]?.[0], 'l.data'), x = floats(c[0]?.[1], 'x.data');
  assert.ok(maxRelativeDifference(l, [2, 0, 1, Math.SQRT2]) <= 4 * EPS, `cholesky: ${l}`);
  assert.ok(maxRelativeDifference(x, [-0.125, 0.75]) <= 4 * EPS, `solve: ${x}`);
  const w = floats(c[1]?.[0], 'values.data');
  assert.ok(maxRelativeDifference(w, [1, 3]) <= 8 * EPS, `eigh: ${w}`);
  assert.deepEqual(c[1]?.[1], 'complex128');
  const d = example1Data();
  const first = cpuContext.posv({ uplo: 'lower', a: strided(d.A, { rows: d.n, count: d.count }), b: strided(d.B, { rows: d.n, cols: 1, count: d.count }) });
  const failed = (first.info as Int32Array).filter((k) => k !== 0).length;
  // By hand too: the identity is positive definite, so none fails (where 'auto' picks the CPU,
  // the CPU's count alone would be the example's own code path compared with itself).
  assert.equal(failed, 0, 'the CPU posv fails none of the identity matrices');
  assert.deepEqual(c[2], [`0 of ${d.count} matrices not positive definite`]);
  if (gpuBranch === 'either' && c.length === 3) return;   // 'auto' chose the CPU: no device branch
  assert.equal(c.length, 4, 'the CUDA branch printed X and info');
  const second = cpuContext.posv({ a: strided(d.A, { rows: d.n, count: d.count }), b: strided(d.B, { rows: d.n, cols: 1, count: d.count }) });
  const X = floats(c[3]![0], 'X'), info = ints(c[3]![1], 'info');
  assert.ok(maxRelativeDifference(X, d.B) <= 30 * d.n * EPS, 'X downloaded from the device = the CPU posv\'s');
  assert.deepEqual([...info], [...(second.info as Int32Array)], 'info downloaded from the device = the CPU posv\'s');
}

/** Example 2: the three steps' B[0] and "every info 0" as the CPU backend computes them and by hand. */
export function checkExample2(run: ExampleRun): void {
  const n = 16, count = 1000;
  const want = [1, 2, 3].map((step) => {
    const A = new Float64Array(n * n * count), B = new Float64Array(n * count).fill(1), info = new Int32Array(count);
    for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) A[i * n * n + j * (n + 1)] = 4 ** step;
    cpuContext.posv({ a: strided(A, { rows: n, count }), b: strided(B, { rows: n, cols: 1, count }), info });
    return [step, B[0]!, info.every((k) => k === 0)];
  });
  // By hand as well (4^step I x = 1: x = 4^-step, exact): on a CPU run the CPU's values alone
  // would compare the example's code path with itself.
  assert.deepEqual(want, [[1, 0.25, true], [2, 0.0625, true], [3, 0.015625, true]]);
  assert.deepEqual(run.calls, want);
}

/** Example 3 (every GPU): the factors of the factor of 2 I and info, gathered, as the CPU's two potrf give them. */
export function checkExample3(run: ExampleRun): void {
  const n = 16, count = 10_000;
  const A = new Float64Array(n * n * count);
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) A[i * n * n + j * (n + 1)] = 2;
  cpuContext.potrf({ a: strided(A, { rows: n, count }) });
  const again = cpuContext.potrf({ a: strided(A, { rows: n, count }) });
  assert.equal(run.calls.length, 1);
  const a = floats(run.calls[0]![0], 'gather(a)'), info = ints(run.calls[0]![1], 'gather(info)');
  assert.ok(maxRelativeDifference(a, A) <= 30 * n * EPS, 'the gathered factors = the CPU\'s');
  assert.deepEqual([...info], [...(again.info as Int32Array)]);
}

/** Example 4: s[0] after S := H H^T (H = 2 I) and its Cholesky factor, as the CPU computes them. */
export function checkExample4(run: ExampleRun): void {
  const n = 8, count = 200;
  const H = new Float64Array(n * n * count);
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) H[i * n * n + j * (n + 1)] = 2;
  const S = new Float64Array(n * n * count);
  cpuContext.gemm({ transB: 'T', a: strided(H, { rows: n, count }), b: strided(H, { rows: n, count }), c: strided(S, { rows: n, count }) });
  cpuContext.potrf({ a: strided(S, { rows: n, count }) });
  assert.deepEqual(run.calls, [[S[0]!]]);
}
