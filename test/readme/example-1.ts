// The first example of README.md, verbatim (test/core/readme.test.ts checks that it stays so).
import { open, strided, ndarray, cholesky, solve, eigh, type DeviceStorage } from 'myriad';

// Array level (numpy 2 conventions): row-major stacks [..., n, n], new arrays out.
const a = ndarray(new Float64Array([4, 2, 2, 3]), [1, 2, 2]);
const l = cholesky(a);                          // throws MyriadError('NUMERICAL') if not SPD
const x = solve(a, ndarray(new Float64Array([1, 2]), [2]));   // a 1-D b is one vector: x is [1, 2]
console.log(l.data, x.data);                    // [2, 0, 1, 1.414...] and [-0.125, 0.75]

// Complex arrays: interleaved (re, im) pairs, numpy's layout; here [[2, -i], [i, 2]].
const h = ndarray(new Float64Array([2, 0, 0, -1, 0, 1, 2, 0]), [2, 2], { dtype: 'complex128' });
const { values, vectors } = eigh(h);            // real values, ascending; complex vectors
console.log(values.data, vectors.dtype);        // [1, 3] complex128

// LAPACK level: BLAS/LAPACK names and semantics, in place, column-major, info per matrix.
const n = 8, count = 100_000;
const A = new Float64Array(n * n * count);      // SPD matrices (here the identity) ...
for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) A[i * n * n + j * (n + 1)] = 1;
const B = new Float64Array(n * count).fill(1);  // ... and right-hand sides
const ctx = open();                             // 'auto': CUDA where usable, else the CPU
const { info } = ctx.posv({
  uplo: 'lower',
  a: strided(A, { rows: n, count }),            // ld = rows, stride = ld * cols by default
  b: strided(B, { rows: n, cols: 1, count }),
});
// info[i] = 0: solved; info[i] = k > 0: the leading minor of order k of matrix i is not positive
// definite (that matrix's B is left unchanged; its neighbours are solved as usual).
console.log(`${info.filter((k) => k !== 0).length} of ${count} matrices not positive definite`);

// Keep data on the GPU across calls: the fast path, no host copies.
if (ctx.backend === 'cuda') {
  const dA = ctx.upload(A), dB = ctx.upload(B);
  const r = ctx.posv({ a: strided(dA, { rows: n, count }), b: strided(dB, { rows: n, cols: 1, count }) });
  await ctx.synchronize();                      // calls on device data are only enqueued
  console.log(ctx.download(dB), ctx.download(r.info as DeviceStorage));   // X and info, on the host
}
