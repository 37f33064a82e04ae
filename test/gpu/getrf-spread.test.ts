/**
 * The blocked LU's spread leaf (kernels/getrf/generate-spread.ts) on a real GPU, alone and small, so
 * that it reports within a minute (skipped with one line where no GPU is usable): single m x w
 * panels (getrfCuda on an m x w matrix with w <= 64 is one leaf and its interchange launch), forced
 * onto the spread leaf, against the CPU reference's dgetf2 (pivots and info exact, the factors to
 * rounding, everything outside the matrices bit for bit, pivots poisoned before); partial last
 * blocks, narrow panels, several matrices, a tie, a zero column, NaN, odd layouts; then batches of
 * one and three matrices of n = 2600 on the default path (the spread leaf from 2560 rows, batches up
 * to the table's count) by their residuals and a planted zero column's info. The blocked
 * driver's cases with spread leaves are in test/gpu/factor-cases.ts ("spread leaves").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGetrf } from '../../src/cpu/lapack/index.js';
import { getrfCuda } from '../../src/cuda/kernels/getrf/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { assertLayoutClose, layoutLength, oddLayout, randomBuffer } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const FORCED = { force: { recursive: true, panels: true, panelWidth: 64, wideLeaf: 64, spreadLeaf: true, lookahead: false } };

test('the spread leaf alone, both forms and the cluster form\'s three exchanges: m x w panels against dgetf2 (partial blocks, several matrices, ties, zero columns, NaN)', { skip, timeout: 400_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2091);
  const cases: [DType, number, number, number][] = [
    ['float64', 40, 40, 2], ['float64', 100, 20, 3], ['float64', 1000, 64, 1], ['float64', 4097, 64, 2], ['float64', 9000, 33, 1],
    ['float32', 96, 33, 2], ['float32', 5000, 64, 1], ['float64', 4096, 64, 3], ['float32', 8192, 50, 2], ['float64', 2600, 64, 6],
  ];
  // Both forms: the cluster form (sm_90) where it holds the rows (4096 float64, 8192 float32 rows),
  // by each of its exchanges (pull, push, signal), the grid form elsewhere; then the grid form everywhere.
  // Each search in its own phase, and for the pushing exchanges (push with the fused search is the
  // table's float32 form) and the grid form also fused into the previous column's update.
  const forms = [{ cluster: true, exchange: 'pull', fused: false }, { cluster: true, exchange: 'push', fused: false }, { cluster: true, exchange: 'signal', fused: false },
    { cluster: true, exchange: 'push', fused: true }, { cluster: true, exchange: 'signal', fused: true }, { cluster: false, exchange: 'pull', fused: false }, { cluster: false, exchange: 'pull', fused: true }] as const;
  for (const { cluster, exchange, fused } of forms) for (const [dtype, m, w, count] of cases) {
    const l = oddLayout(m, w, count);
    const host = randomBuffer(rng, dtype, layoutLength(l));
    const at = (mat: number, i: number, j: number): number => l.offset + mat * l.stride + i + j * l.ld;
    host[at(0, 5, 0)] = 4; host[at(0, 9, 0)] = -4;   // a tie: row 5 wins
    if (count > 1) for (let i = 0; i < m; i++) host[at(count - 1, i, 3)] = 0;   // a zero column: info 4
    if (count > 2) host[at(1, m - 1, 2)] = NaN;
    const want = host.slice(), wantPiv = new Int32Array(count * w), wantInfo = new Int32Array(count);
    cpuGetrf({ a: strided(want, l), ipiv: wantPiv, pivotStride: w, info: wantInfo });
    const dA = dev.upload(host), dPiv = dev.upload(new Int32Array(count * w).fill(-7)), dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      getrfCuda(dev, { a: strided(dA, l), ipiv: dPiv, pivotStride: w, info: dInfo }, { force: { ...FORCED.force, spreadCluster: cluster, spreadExchange: exchange, spreadFusedSearch: fused } });
      const got = dev.download(dA) as FloatArray, piv = dev.download(dPiv) as Int32Array, info = dev.download(dInfo) as Int32Array;
      const what = `spread leaf${cluster ? ` (cluster form, ${exchange} exchange, where it holds the rows)` : ''}${fused ? ', fused search' : ''} ${dtype} ${m} x ${w} x ${count}`;
      assert.deepEqual([...info], [...wantInfo], `${what}: info`);
      assert.deepEqual([...piv], [...wantPiv], `${what}: pivots`);
      assert.equal(wantPiv[0], 5, 'the first of two largest values');
      const tol = 60 * m * DTYPE_EPS[dtype] * 4;
      assertLayoutClose(got, want, l, tol, what, (mat) => count > 2 && mat === 1);   // matrix 1 holds NaN
    } finally {
      for (const d of [dA, dPiv, dInfo]) d.dispose();
    }
  }
});

test('getrf, batches of one and three matrices of n = 2600 on the default path (spread leaves): pivots a permutation, ||PA - LU|| small, a zero column\'s info', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2092);
  const n = 2600, zeroCol = 2000;
  for (const count of [1, 3]) {
    const l = oddLayout(n, n, count);
    const host = randomBuffer(rng, 'float64', layoutLength(l));
    const singular = count - 1;   // with count 3, the last matrix has a zero column: info zeroCol + 1
    if (count > 1) for (let i = 0; i < n; i++) host[l.offset + singular * l.stride + i + zeroCol * l.ld] = 0;
    const dA = dev.upload(host), dPiv = dev.upload(new Int32Array(n * count).fill(-7)), dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      getrfCuda(dev, { a: strided(dA, l), ipiv: dPiv, pivotStride: n, info: dInfo });
      const lu = dev.download(dA) as Float64Array, piv = dev.download(dPiv) as Int32Array, info = dev.download(dInfo) as Int32Array;
      for (let mat = 0; mat < count; mat++) {
        const what = `n = ${n} x ${count}, matrix ${mat}`;
        if (count > 1 && mat === singular) { assert.equal(info[mat], zeroCol + 1, `${what}: info`); continue; }
        assert.equal(info[mat], 0, `${what}: info`);
        // Apply the interchanges to A's rows, then ||PA - LU||_1 / (n eps ||A||_1) on a sample of columns.
        const base = l.offset + mat * l.stride;
        const a = (i: number, j: number): number => host[base + i + j * l.ld]!;
        const f = (i: number, j: number): number => lu[base + i + j * l.ld]!;
        const perm = Array.from({ length: n }, (_, i) => i);
        for (let k = 0; k < n; k++) {
          const p = piv[mat * n + k]!;
          assert.ok(p >= k && p < n, `${what}: pivot ${k} is ${p}`);
          [perm[k], perm[p]] = [perm[p]!, perm[k]!];
        }
        let normA = 0, worst = 0;
        for (let j = 0; j < n; j++) { let s = 0; for (let i = 0; i < n; i++) s += Math.abs(a(i, j)); normA = Math.max(normA, s); }
        for (const j of [0, 1, 63, 64, 65, 1299, 2559, 2560, n - 1]) {
          let s = 0;
          for (let i = 0; i < n; i++) {
            let x = 0;
            for (let p = 0; p <= Math.min(i, j); p++) x += (p === i ? 1 : f(i, p)) * f(p, j);
            s += Math.abs(a(perm[i]!, j) - x);
          }
          worst = Math.max(worst, s);
        }
        const ratio = worst / (n * DTYPE_EPS.float64 * normA);
        assert.ok(ratio < 30, `${what}: residual ratio ${ratio}`);
      }
    } finally {
      for (const d of [dA, dPiv, dInfo]) d.dispose();
    }
  }
});
