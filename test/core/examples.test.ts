/**
 * The examples/ programs at small sizes (full size by hand: node dist/examples/<name>.js), their
 * results checked against what they compute. (Their compile as a new user's project, against the
 * shipped declarations: test/types/declarations.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as myriad from '../../src/index.js';
import { runFits } from '../../examples/fits.js';
import { runKalman } from '../../examples/kalman.js';
import { denseFactor, matrixOfTree, runMultifrontal, syntheticTree } from '../../examples/multifrontal.js';
import { runStresses } from '../../examples/stresses.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The covariance every filter of the bank reaches (the Riccati recursion does not depend on the data). */
function referenceCovariance(steps: number): number[] {
  const dt = 0.1;
  const F = [[1, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]];
  const mul = (A: number[][], B: number[][]): number[][] => A.map((r) => B[0]!.map((_, j) => r.reduce((s, v, k) => s + v * B[k]![j]!, 0)));
  const T = (A: number[][]): number[][] => A[0]!.map((_, j) => A.map((r) => r[j]!));
  let P: number[][] = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (i === j ? 10 : 0)));
  for (let s = 0; s < steps; s++) {
    P = mul(mul(F, P), T(F)).map((r, i) => r.map((v, j) => v + (i === j ? 1e-3 : 0)));
    // H selects the positions: S = P[0..1][0..1] + R, K = P[:, 0..1] S^-1.
    const S = [[P[0]![0]! + 0.0025, P[0]![1]!], [P[1]![0]!, P[1]![1]! + 0.0025]];
    const det = S[0]![0]! * S[1]![1]! - S[0]![1]! * S[1]![0]!;
    const Si = [[S[1]![1]! / det, -S[0]![1]! / det], [-S[1]![0]! / det, S[0]![0]! / det]];
    const K = mul(P.map((r) => [r[0]!, r[1]!]), Si);
    const HP = [P[0]!, P[1]!];
    const KHP = mul(K, HP);
    P = P.map((r, i) => r.map((v, j) => v - KHP[i]![j]!));
  }
  return P.flat();
}

describe('examples', () => {
  it('kalman: every filter reaches the Riccati covariance, and the estimates track the truth', () => {
    const steps = 15;
    const r = runKalman(300, steps);
    const ref = referenceCovariance(steps);
    for (let f = 0; f < 300; f++)
      for (let k = 0; k < 16; k++) assert.ok(Math.abs(r.P.data[f * 16 + k]! - ref[k]!) < 1e-9 * (1 + Math.abs(ref[k]!)), `filter ${f} P[${k}]`);
    const err = myriad.subtract(r.x, r.truth);
    const rms = Math.sqrt(err.data.reduce((s, v) => s + v * v, 0) / err.data.length);
    assert.ok(rms < 0.1, `rms ${rms}`);
    assert.ok(r.msPerStep > 0);
  });
  it('stresses: eigh and syev agree; values ascending, summing to the trace; A v = lambda v, |v| = 1', () => {
    const r = runStresses(400);
    for (let t = 0; t < 400; t++) {
      const a = r.sigma.data.subarray(t * 9, t * 9 + 9);
      const w = r.values.data.subarray(t * 3, t * 3 + 3);
      assert.ok(w[0]! <= w[1]! && w[1]! <= w[2]!);
      assert.ok(Math.abs(w[0]! + w[1]! + w[2]! - (a[0]! + a[4]! + a[8]!)) < 1e-9 * 300);
      for (let j = 0; j < 3; j++) {
        assert.ok(Math.abs(r.syevValues.data[t * 3 + j]! - w[j]!) < 1e-9 * 300);
        // A unit vector (without this, zero vectors would satisfy A v = lambda v).
        let norm2 = 0;
        for (let i = 0; i < 3; i++) norm2 += r.vectors.data[t * 9 + i * 3 + j]! ** 2;
        assert.ok(Math.abs(norm2 - 1) < 1e-12, `tensor ${t} vector ${j}: |v|^2 = ${norm2}`);
        for (let i = 0; i < 3; i++) {
          let av = 0;
          for (let k = 0; k < 3; k++) av += a[i * 3 + k]! * r.vectors.data[t * 9 + k * 3 + j]!;
          assert.ok(Math.abs(av - w[j]! * r.vectors.data[t * 9 + i * 3 + j]!) < 1e-9 * 300);
        }
      }
    }
  });
  it('fits: lstsq, gels and the column form agree and recover the coefficients', () => {
    const fits = 200;
    const r = runFits(fits);
    assert.deepEqual(r.lstsq.shape, [fits, 4, 1]);
    assert.deepEqual(r.gels.shape, [fits, 4, 1]);
    assert.deepEqual(r.columns.shape, [4, fits]);
    for (let f = 0; f < fits; f++) {
      for (let k = 0; k < 4; k++) {
        const x = r.lstsq.data[f * 4 + k]!;
        assert.ok(Math.abs(x - r.coefficients.data[f * 4 + k]!) < 0.05, `fit ${f} c${k}`);
        assert.ok(Math.abs(x - r.gels.data[f * 4 + k]!) < 1e-10);
        assert.ok(Math.abs(x - r.columns.data[k * fits + f]!) < 1e-10);
      }
    }
  });
  it('multifrontal: the tree fits its matrix, and the fronts\' factor columns are the dense Cholesky factor of A', () => {
    const tree = syntheticTree(80, 6, 10, 5);
    const { n, fronts } = tree;
    // Every front's update set lies in its parent's structure, above its own pivots; levels below parents.
    fronts.forEach((f, i) => {
      if (f.parent < 0) { assert.equal(f.update.length, 0); return; }
      const parent = fronts[f.parent]!;
      const structure = new Set([...parent.pivots, ...parent.update]);
      assert.ok(f.update.every((g) => structure.has(g) && g > f.pivots[f.pivots.length - 1]!), `front ${i}`);
      assert.ok(f.update.some((g) => parent.pivots.includes(g)), `front ${i} reaches its parent`);
      assert.ok(parent.level > f.level);
    });
    const matrix = matrixOfTree(tree, 3);
    const r = runMultifrontal(tree, matrix);
    assert.ok(r.info.every((v) => v === 0));
    assert.equal(r.levels.reduce((s, l) => s + l.fronts, 0), fronts.length);
    // The dense reference: A from its lower triangle, factored by potrf as one matrix.
    const A = new Float64Array(n * n);
    for (let e = 0; e < matrix.values.length; e++) A[matrix.cols[e]! * n + matrix.rows[e]!] = matrix.values[e]!;
    const ref = A.slice();
    myriad.potrf({ uplo: 'lower', a: myriad.strided(ref, { rows: n, count: 1 }) });
    const L = denseFactor(r);
    let worst = 0;
    for (let j = 0; j < n; j++) for (let i = j; i < n; i++) worst = Math.max(worst, Math.abs(L[j * n + i]! - ref[j * n + i]!));
    assert.ok(worst < 1e-12 * n, `max |L - L_dense| ${worst}`);
    // And L L^T = A on the lower triangle, independently of the reference.
    let residual = 0;
    for (let j = 0; j < n; j++)
      for (let i = j; i < n; i++) {
        let s = 0;
        for (let k = 0; k <= j; k++) s += L[k * n + i]! * L[k * n + j]!;
        residual = Math.max(residual, Math.abs(s - A[j * n + i]!));
      }
    assert.ok(residual < 1e-12 * n * 10, `max |L L^T - A| ${residual}`);
  });
  it('the examples use no index arithmetic (no i + j * ld, no ld or stride but through the bridge)', () => {
    for (const f of ['kalman.ts', 'stresses.ts', 'fits.ts']) {
      const code = readFileSync(join(root, 'examples', f), 'utf8').replace(/\/\*\*[\s\S]*?\*\//g, '');
      assert.doesNotMatch(code, /\bld\b|\[[^\]]*[a-z]\s*\*\s*[a-z0-9]+\s*\+/i, f);
    }
  });
});
