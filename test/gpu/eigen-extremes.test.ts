/**
 * syev, heev and gesvd on the GPU at the edges of the floating-point range, every dtype: each batch
 * holds a random matrix B, B scaled by 2^-S and by 2^S (S = 600 for the float64 parts, 80 for
 * float32: their squares underflow or overflow, so a reduction that sums unscaled squares loses
 * them) and a graded D B D (D over 10^-40 ... 10^40; 10^-8 ... 10^8 in float32), at orders that
 * reach every design (the per-thread and Jacobi designs, the tridiagonal and bidiagonal
 * reductions, the blocked reduction). Checked by residuals that do not depend on the library
 * (computed in float64 on the unscaled B, W and S scaled back by the exact power of two): info 0,
 * ||A V - V W||_F / ||A||_F, ||V^H V - I||_F, ||A - U S VT||_F / ||A||_F, ||U^H U - I||_F and
 * ||VT VT^H - I||_F below 30 max(m, n) eps; values-only eigenvalues within 30 n eps ||A||_F of the
 * ones computed with vectors. The CPU reference passes the same checks on all of these (run with its
 * context in place of the GPU's). Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type ElementType, type FloatArray } from '../../src/core/dtype.js';
import { eigenResiduals, gradedRows, gradedSymmetric, orthogonality, svdResidual, values } from '../helpers/eigen-residuals.js';
import { gpuContext, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();
const THRESHOLD = 30;
const TYPES: readonly ElementType[] = ['float64', 'float32', 'complex128', 'complex64'];
const SYEV_ORDERS = [3, 8, 20, 32, 48, 200];
const GESVD_SHAPES: readonly (readonly [number, number])[] = [[3, 3], [8, 8], [20, 16], [16, 24], [32, 24], [32, 32], [48, 48], [40, 60], [200, 200]];

const single = (dtype: ElementType): boolean => dtype === 'float32' || dtype === 'complex64';
const partsOf = (dtype: ElementType): 1 | 2 => (dtype === 'complex128' || dtype === 'complex64' ? 2 : 1);
const epsOf = (dtype: ElementType): number => DTYPE_EPS[single(dtype) ? 'float32' : 'float64'];
const exponentOf = (dtype: ElementType): number => (single(dtype) ? 80 : 600);
const decadesOf = (dtype: ElementType): number => (single(dtype) ? 8 : 40);

/** The batch's members as float64 values exactly representable in the dtype, and each one's scale 2^e relative to its base (0 for the graded one). */
interface Member { readonly stored: Float64Array; readonly base: Float64Array; readonly exponent: number; readonly what: string }

function roundTo(dtype: ElementType, x: Float64Array): Float64Array { return single(dtype) ? x.map(Math.fround) : x; }

/** Random B (Hermitian or symmetric where `hermitian`), 2^-S B, 2^S B and the graded D B D. */
function members(dtype: ElementType, m: number, n: number, hermitian: boolean, seed: number): Member[] {
  const parts = partsOf(dtype), s = exponentOf(dtype);
  const base = roundTo(dtype, hermitian ? gradedSymmetric(n, parts, 0, seed) : values(parts * m * n, seed));
  const graded = hermitian ? gradedSymmetric(n, parts, decadesOf(dtype), seed + 7) : gradedRows(m, n, parts, decadesOf(dtype), seed + 7);
  return [
    { stored: base, base, exponent: 0, what: 'B' },
    { stored: base.map((x) => x * 2 ** -s), base, exponent: -s, what: `2^-${s} B` },
    { stored: base.map((x) => x * 2 ** s), base, exponent: s, what: `2^${s} B` },
    { stored: roundTo(dtype, graded), base: roundTo(dtype, graded), exponent: 0, what: 'graded D B D' },
  ];
}

function pack(dtype: ElementType, ms: readonly Member[], per: number): FloatArray {
  const x = allocate(single(dtype) ? 'float32' : 'float64', per * ms.length);
  ms.forEach((mb, k) => x.set(mb.stored, k * per));
  return x;
}

for (const dtype of TYPES) {
  const parts = partsOf(dtype), op = parts === 2 ? 'heev' : 'syev', real = single(dtype) ? 'float32' : 'float64';
  test(`${op} ${dtype} at the range's edges (2^-S B, 2^S B, graded): info 0, residuals below ${THRESHOLD} n eps`, { skip, timeout: 600_000 }, () => {
    const { ctx } = gpuContext();
    const eps = epsOf(dtype), failures: string[] = [];
    const check = (ok: boolean, what: string): void => { if (!ok) failures.push(what); };
    for (const n of SYEV_ORDERS) {
      const ms = members(dtype, n, n, true, 100 + n), count = ms.length, per = parts * n * n;
      const run = (jobz: 'vectors' | 'values'): { a: FloatArray; w: FloatArray; info: Int32Array; route: string | undefined } => {
        const a = pack(dtype, ms, per), w = allocate(real, n * count).fill(NaN), info = new Int32Array(count).fill(-7);
        const request = { jobz, uplo: 'lower' as const, a: strided(a, { rows: n, count, dtype }), w: strided(w, { rows: n, cols: 1, count }), info };
        if (parts === 2) ctx.heev(request); else ctx.syev(request);
        return { a, w, info, route: ctx.lastRoute?.route };
      };
      const withVectors = run('vectors'), valuesOnly = run('values');
      ms.forEach((mb, k) => {
        const at = `n ${n} ${mb.what} (route ${withVectors.route})`;
        check(withVectors.info[k] === 0, `${at}: info ${withVectors.info[k]}`);
        check(valuesOnly.info[k] === 0, `${at}, values only: info ${valuesOnly.info[k]}`);
        const w = Array.from(withVectors.w.subarray(k * n, (k + 1) * n), (x) => x * 2 ** -mb.exponent);
        const { res, orth } = eigenResiduals(mb.base, withVectors.a.subarray(k * per, (k + 1) * per), w, n, parts);
        check(res <= THRESHOLD * n * eps, `${at}: ||A V - V W|| / ||A|| = ${res}`);
        check(orth <= THRESHOLD * n * eps, `${at}: ||V^H V - I|| = ${orth}`);
        const norm = Math.hypot(...mb.base);
        for (let j = 0; j < n; j++) {
          const got = valuesOnly.w[k * n + j]! * 2 ** -mb.exponent;
          check(Math.abs(got - w[j]!) <= THRESHOLD * n * eps * norm, `${at}, values only: w[${j}] = ${got} against ${w[j]} with vectors`);
        }
      });
    }
    if (failures.length > 0) assert.fail(`${failures.length} checks failed: ${failures.join('; ')}`);
  });

  test(`gesvd ${dtype} at the range's edges (2^-S B, 2^S B, graded rows): info 0, orthonormal U and VT, A = U S VT`, { skip, timeout: 600_000 }, () => {
    const { ctx } = gpuContext();
    const eps = epsOf(dtype), failures: string[] = [];
    const check = (ok: boolean, what: string): void => { if (!ok) failures.push(what); };
    for (const [m, n] of GESVD_SHAPES) {
      const k = Math.min(m, n), ms = members(dtype, m, n, false, 300 + m + n), count = ms.length, per = parts * m * n;
      const a = pack(dtype, ms, per), s = allocate(real, k * count).fill(NaN), info = new Int32Array(count).fill(-7);
      const u = allocate(real, parts * m * k * count).fill(NaN), vt = allocate(real, parts * k * n * count).fill(NaN);
      ctx.gesvd({
        a: strided(a, { rows: m, cols: n, count, dtype }), s: strided(s, { rows: k, cols: 1, count }), info,
        u: strided(u, { rows: m, cols: k, count, dtype }), vt: strided(vt, { rows: k, cols: n, count, dtype }),
      });
      const route = ctx.lastRoute?.route;
      ms.forEach((mb, p) => {
        const at = `${m} x ${n} ${mb.what} (route ${route})`;
        check(info[p] === 0, `${at}: info ${info[p]}`);
        const U = u.subarray(parts * m * k * p, parts * m * k * (p + 1)), VT = vt.subarray(parts * k * n * p, parts * k * n * (p + 1));
        const S = Array.from(s.subarray(k * p, k * (p + 1)), (x) => x * 2 ** -mb.exponent);
        const bound = THRESHOLD * Math.max(m, n) * eps;
        check(orthogonality(U, parts, m, k, false) <= bound, `${at}: ||U^H U - I|| = ${orthogonality(U, parts, m, k, false)}`);
        check(orthogonality(VT, parts, k, n, true) <= bound, `${at}: ||VT VT^H - I|| = ${orthogonality(VT, parts, k, n, true)}`);
        const res = svdResidual(mb.base, U, S, VT, m, n, parts);
        check(res <= bound, `${at}: ||A - U S VT|| / ||A|| = ${res}`);
      });
    }
    if (failures.length > 0) assert.fail(`${failures.length} checks failed: ${failures.join('; ')}`);
  });
}
