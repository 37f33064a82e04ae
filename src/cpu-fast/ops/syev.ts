/**
 * syev on real batches (float64 and float32, both computed in float64 and rounded once, as the
 * reference): LAPACK's dsyev path where plan/eigen.ts says so, the reference's cyclic Jacobi
 * (src/cpu/lapack/jacobi.ts) elsewhere. The real counterpart of ops/zheev.ts, with which it shares
 * the QL iteration (kernels/tridiagonal-ql.ts, kernels/tridiagonal-values.ts) and the rotations'
 * WebAssembly kernel on Z (zheev-wasm.ts's rotate, generated into this path's module, syev-wasm.ts).
 *
 * The path, two matrices at a time (their QL iterations in lockstep): the `uplo` triangle loaded into the lower triangle of a float64
 * working matrix, scaled by a power of two where its largest entry lies outside [2^-200, 2^200];
 * dsytd2 'L' to a tridiagonal T = Q^T A Q (kernels/syev-wasm.ts's reduce); the implicit QL iteration on T, with
 * vectors each sweep's rotations applied to Z (for values only the root-free iteration); the
 * eigenvalues ascending (ties by index, as the reference sorts); with vectors V = Q Z (Z's columns in
 * the eigenvalues' order; back below).
 *
 * Why not Jacobi here: a sweep of the reference costs about 8 n^3 flops on A (both triangles) and
 * 2 n^3 on V, and it makes 5 to 10 of them; this path costs 4/3 n^3 (reduction) + about 3 n^3 (the
 * rotations on Z) + 2 n^3 (V = Q Z), and 4/3 n^3 for values only.
 *
 * Semantics kept from the reference: NaN or Inf in the referenced triangle: info n + 2, w NaN (and A
 * with vectors), nothing else of the batch touched; 'values' leaves A unchanged; info 0 otherwise. A
 * matrix this path cannot take as it stands is handed to the reference whole, untouched (its result is
 * then the reference's, bit for bit): a reflector whose sum of squares underflows (a strongly graded
 * matrix) or a QL iteration past 30 steps for one eigenvalue (the reference's n + 1 then comes from its
 * own sweeps). Eigenvectors are those of LAPACK's route (each up to sign), not the reference's.
 */
import { strided } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GemmRequest, SyevRequest } from '../../core/ops.js';
import { cpuBackend } from '../../cpu/backend.js';
import { cpuTuning } from '../context.js';
import { moduleFactory } from '../jit/compile.js';
import { qlState, sortAscending, start } from '../kernels/tridiagonal-ql.js';
import { startValues, valuesState } from '../kernels/tridiagonal-values.js';
import { generateSyevWasm, type SyevWasmParams } from '../kernels/syev-wasm.js';
import { zLd } from '../kernels/zheev-wasm.js';
import { heap, loadModule } from '../wasm/runtime.js';
import { planSyev, type EigenForce } from '../plan/eigen.js';
import type { OpOptions } from '../tuning.js';
import { fastGemm } from './gemm.js';
import { runSquareWithHandBack, stridedView } from './run-batch.js';
import { HAND_BACK, iterate, scaleFor } from './tridiagonal-driver.js';

export type SyevOptions = OpOptions<EigenForce>;
type SyevReq = SyevRequest<FloatArray, Int32Array>;
type Rotate = (z: number, cs: number, l: number, m: number) => void;
const rotateFor = moduleFactory<SyevWasmParams, Rotate>(generateSyevWasm, 'rotate', loadModule);
type Reduce = (a: number, tau: number, d: number, e: number, w: number) => number;
const reduceFor = moduleFactory<SyevWasmParams, Reduce>(generateSyevWasm, 'reduce', loadModule);


/**
 * One order's working arrays. In the thread's wasm memory, where the kernels read them: `loaded` (the
 * working matrix, column-major, ld = n; the reduction leaves the reflectors below its subdiagonal) and,
 * with vectors, Z (ld zLd(n)) and cs (a sweep's rotations). In JavaScript, copied out after the
 * reduction (V = Q Z's gemm stages its operands in the wasm memory): a (the reflectors), tau, d and e
 * (the tridiagonal); v (the eigenvectors), order (their permutation) and backBlocked's blocks.
 */
interface Work {
  readonly n: number;
  readonly a: Float64Array; readonly tau: Float64Array;
  readonly d: Float64Array; readonly e: Float64Array; readonly v: Float64Array; readonly order: Int32Array;
  readonly z: Float64Array | null; readonly cs: Float64Array; readonly rotate: ((l: number, m: number) => void) | null;
  /** backBlocked's block of reflectors Y (ld n), its T (ld NB) and Y^T V (ld NB). */
  readonly y: Float64Array; readonly t: Float64Array; readonly yv: Float64Array;
  /** backBlocked's two products a block, from the last block (built once a run, validated once). */
  readonly products: readonly BlockProducts[];
  /** The working matrix in the wasm memory, as loaded (lower triangle, ld n). */
  readonly loaded: Float64Array;
  /** dsytd2 'L' on it (kernels/syev-wasm.ts): d, e, tau and (with vectors) the reflectors into a; false where the matrix goes back. */
  readonly reduce: () => boolean;
  scale: number;
}

/** The two slots' iteration states (two matrices run their QL iterations in lockstep). */
const qls = [qlState(), qlState()] as const;
const valueStates = [valuesState(), valuesState()] as const;

/** The arrays of the largest order seen so far on this thread (one set, so a batch of many orders keeps one), to HOLD_MAX. */
const NONE = { order: 0, a: new Float64Array(0), v: new Float64Array(0), small: new Float64Array(0), ints: new Int32Array(0), wy: new Float64Array(0) };
let held = NONE;
/** Orders above it (32 n^2 bytes of a and v for the two slots) give their arrays up after the run. */
const HOLD_MAX = 512;

/** Two slots' working arrays (two matrices at a time), backBlocked's blocks shared. */
function workFor(n: number, vectors: boolean): readonly [Work, Work] {
  if (held.order < n) {
    held = { order: n, a: new Float64Array(2 * n * n), v: new Float64Array(2 * n * n), small: new Float64Array(6 * n), ints: new Int32Array(2 * n), wy: new Float64Array(2 * NB * n + NB * NB) };
  }
  // each slot's wasm memory (from 0: ops run one at a time on a thread): with vectors Z and cs, then
  // the reduction's working matrix, tau, its scratch, d and e
  const zBytes = vectors ? 8 * n * zLd(n) : 0, csBytes = vectors ? 16 * n : 0, aBytes = 8 * n * n;
  const slotBytes = zBytes + csBytes + aBytes + 32 * n;
  const mem = heap(2 * slotBytes).f64;
  const region = (byte: number, length: number): Float64Array => mem.subarray(byte / 8, byte / 8 + length);
  const y = held.wy.subarray(0, NB * n), t = held.wy.subarray(NB * n, NB * n + NB * NB), yv = held.wy.subarray(NB * n + NB * NB, 2 * NB * n + NB * NB);
  const reduceKernel = reduceFor({ n });
  const slot = (q: 0 | 1): Work => {
    const base = q * slotBytes, at = base + zBytes + csBytes;
    const part = (k: number): Float64Array => held.small.subarray((3 * q + k) * n, (3 * q + k + 1) * n);
    let rotate: ((l: number, m: number) => void) | null = null;
    if (vectors) {
      const kernel = rotateFor({ n });
      rotate = (l, m) => kernel(base, base + zBytes, l, m);
    }
    const work: Work = {
      n, a: held.a.subarray(q * n * n, (q + 1) * n * n), v: held.v.subarray(q * n * n, (q + 1) * n * n), tau: part(0), d: part(1), e: part(2),
      order: held.ints.subarray(q * n, (q + 1) * n), z: vectors ? region(base, n * zLd(n)) : null, cs: vectors ? region(base + zBytes, 2 * n) : new Float64Array(0), rotate, scale: 1,
      y, t, yv, products: vectors && n >= BLOCKED_FROM ? blockProducts(n, y, yv, held.v.subarray(q * n * n, (q + 1) * n * n)) : [], loaded: region(at, n * n),
      reduce: () => {
        const tauAt = at + aBytes, dAt = tauAt + 16 * n, eAt = dAt + 8 * n;
        if (reduceKernel(at, tauAt, dAt, eAt, tauAt + 8 * n) !== 1) return false;
        // out of the wasm memory: V = Q Z's gemm stages its operands there
        work.d.set(region(dAt, n));
        work.e.set(region(eAt, n));
        work.tau.set(region(tauAt, n));
        if (vectors) work.a.set(work.loaded);
        return true;
      },
    };
    return work;
  };
  return [slot(0), slot(1)];
}

export function fastSyev(r: SyevReq, options: SyevOptions = {}): void {
  runSquareWithHandBack(r, (n) => planSyev({ n, jobz: r.jobz }, options.tuning ?? cpuTuning(), options.force) === 'tridiagonal',
    (n, p0, count, handBack) => syevRun(r, n, p0, count, handBack), (s) => cpuBackend.syev(s));
}

/**
 * `count` matrices of order n from p0 (one strided run, or one matrix of a list), two at a time: both
 * loaded and reduced, their QL iterations in lockstep (tridiagonal-driver.ts iterate), then both
 * ordered (Z's columns into V, before any gemm of V = Q Z reuses the wasm memory), back-transformed
 * and stored.
 */
function syevRun(r: SyevReq, n: number, p0: number, count: number, defer: (p: number) => void): void {
  const vectors = r.jobz === 'vectors';
  const upper = r.uplo === 'upper';
  let works = workFor(n, vectors);
  const A = stridedView(r.a, p0);
  const W = stridedView(r.w, p0);
  const deferred: number[] = [];
  const info = [0, 0];
  for (let t = 0; t < count; t += 2) {
    // a gemm of V = Q Z that grew the wasm memory detached the views (their length then 0): new ones
    if (works[0].loaded.length === 0) works = workFor(n, vectors);
    const slots: 1 | 2 = t + 1 < count ? 2 : 1;
    for (let q = 0; q < slots; q++) {
      const work = works[q]!;
      info[q] = prepare(A.data, A.offset + (t + q) * A.stride, A.ld, n, upper, work);
      if (info[q] !== 0) continue;
      if (vectors) start(qls[q]!, work.d, work.e, n, work.cs, work.rotate);
      else startValues(valueStates[q]!, work.d, work.e, n);
    }
    iterate(vectors, qls, valueStates, info, slots);
    for (let q = 0; q < slots; q++) if (info[q] === 0) order(works[q]!, vectors);
    for (let q = 0; q < slots; q++) {
      const p = t + q, work = works[q]!;
      if (info[q] === HAND_BACK) {
        deferred.push(p0 + p);
        continue;
      }
      r.info[p0 + p] = info[q]!;
      const off = A.offset + p * A.stride, wo = W.offset + p * W.stride;
      if (info[q] !== 0) {
        W.data.fill(NaN, wo, wo + n);
        if (vectors) for (let j = 0; j < n; j++) A.data.fill(NaN, off + j * A.ld, off + j * A.ld + n);
        continue;
      }
      if (vectors) {
        if (n >= BLOCKED_FROM) backBlocked(work);
        else back(work);
      }
      const d = work.d;
      for (let j = 0; j < n; j++) W.data[wo + j] = d[j]!;
      if (vectors) {
        const v = work.v;
        // one native copy where the columns lie back to back (float32 rounds in it)
        if (A.ld === n) A.data.set(v, off);
        else for (let j = 0; j < n; j++) A.data.set(v.subarray(j * n, (j + 1) * n), off + j * A.ld);
      }
    }
  }
  if (n > HOLD_MAX) held = NONE;
  // after the run: the reference may use the wasm memory too
  for (const p of deferred) defer(p);
}

/**
 * One matrix at offset `off` of data (ld) loaded into the work's lower triangle (the upper one's
 * transpose where uplo is upper), scaled, and reduced to d and e; with vectors Z set to the identity.
 * Returns 0, n + 2 (NaN or Inf) or HAND_BACK.
 */
function prepare(data: FloatArray, off: number, ld: number, n: number, upper: boolean, work: Work): number {
  const a = work.loaded;
  // the largest entry by a running maximum with no chain through an add or Math.max (a NaN flagged
  // on the side, an infinity above MAX_VALUE: one test at the end)
  let amax = 0;
  let nan = false;
  for (let j = 0; j < n; j++) {
    const col = off + j * ld;
    if (upper) {
      // column j of the upper triangle is row j of the lower one
      for (let i = 0; i <= j; i++) {
        const x = data[col + i]!;
        a[i * n + j] = x;
        const ax = Math.abs(x);
        if (ax > amax) amax = ax;
        else if (ax !== ax) nan = true;
      }
    } else {
      for (let i = j; i < n; i++) {
        const x = data[col + i]!;
        a[j * n + i] = x;
        const ax = Math.abs(x);
        if (ax > amax) amax = ax;
        else if (ax !== ax) nan = true;
      }
    }
  }
  if (nan || amax > Number.MAX_VALUE) return n + 2;
  const scale = scaleFor(amax);
  if (scale !== 1) for (let j = 0; j < n; j++) for (let k = j * n + j; k < (j + 1) * n; k++) a[k] = a[k]! * scale;
  work.scale = scale;
  if (!work.reduce()) return HAND_BACK;
  const z = work.z;
  if (z !== null) {
    const zld = zLd(n);
    z.fill(0, 0, n * zld);
    for (let j = 0; j < n; j++) z[j * zld + j] = 1;
  }
  return 0;
}

/** After the QL iteration: the eigenvalues ascending and scaled back; with vectors Z's columns in their order into V (V = Q Z follows). */
function order(work: Work, vectors: boolean): void {
  const { n, d, v, z, order: perm } = work;
  sortAscending(d, n, vectors ? perm : null);
  if (vectors && z !== null) {
    const zld = zLd(n);
    for (let j = 0; j < n; j++) v.set(z.subarray(perm[j]! * zld, perm[j]! * zld + n), j * n);
  }
  if (work.scale !== 1) for (let j = 0; j < n; j++) d[j] = d[j]! / work.scale;
}

/** V := Q V = H(0) (H(1) ... (H(n-2) V)) on all n columns (dormtr 'L', 'N'), v_i's 1 at row i + 1 implied. */
function back(work: Work): void {
  const { n, a, tau, v } = work;
  for (let i = n - 2; i >= 0; i--) {
    const t = tau[i]!;
    if (t === 0) continue;
    const c = i * n;
    for (let j = 0; j < n; j++) {
      const cj = j * n;
      let s = v[cj + i + 1]!;
      for (let k = i + 2; k < n; k++) s += a[c + k]! * v[cj + k]!;
      s *= t;
      v[cj + i + 1] = v[cj + i + 1]! - s;
      for (let k = i + 2; k < n; k++) v[cj + k] = v[cj + k]! - s * a[c + k]!;
    }
  }
}

/** Reflectors a block of backBlocked, and the order from which V = Q Z takes it. */
const NB = 16;
const BLOCKED_FROM = 32;

/**
 * V := Q V as `back`, by blocks of NB reflectors from the last (dormtr through dlarft and dlarfb):
 * H(i0) ... H(i0 + k - 1) = I - Y T Y^T with T upper triangular, V := V - Y (T (Y^T V)) on V's rows
 * i0 + 1 ... n - 1, the two products on the fast gemm (ops/gemm.ts: the WebAssembly kernels from
 * these sizes), T and its product in JavaScript.
 */
function backBlocked(work: Work): void {
  const { n, a, tau, y, t, yv } = work;
  for (const { i0, k, m, project, update } of work.products) {
    const r0 = i0 + 1;
    // Y: m x k (ld m), column q reflector i0 + q: zero above row q, 1 at q, a's column below
    for (let q = 0; q < k; q++) {
      const col = q * m, src = (i0 + q) * n + r0;
      for (let r = 0; r < q; r++) y[col + r] = 0;
      y[col + q] = 1;
      for (let r = q + 1; r < m; r++) y[col + r] = a[src + r]!;
    }
    // T (dlarft 'F', 'C'): T(0:q, q) = -tau_q T(0:q, 0:q) Y(:, 0:q)^T y_q, T(q, q) = tau_q
    for (let q = 0; q < k; q++) {
      const tq = tau[i0 + q]!;
      for (let p = 0; p < q; p++) {
        let s = 0;
        for (let r = q; r < m; r++) s += y[p * m + r]! * y[q * m + r]!;
        t[q * NB + p] = -tq * s;
      }
      for (let p = 0; p < q; p++) {
        let s = 0;
        for (let l = p; l < q; l++) s += t[l * NB + p]! * t[q * NB + l]!;
        t[q * NB + p] = s;
      }
      t[q * NB + q] = tq;
    }
    // W = Y^T V(r0:n, :) (k x n, ld NB); W := T W; V(r0:n, :) -= Y W
    fastGemm(project);
    for (let j = 0; j < n; j++) {
      const c = j * NB;
      for (let p = 0; p < k; p++) {
        let s = 0;
        for (let l = p; l < k; l++) s += t[l * NB + p]! * yv[c + l]!;
        yv[c + p] = s;
      }
    }
    fastGemm(update);
  }
}

/** One block of backBlocked: reflectors i0 ... i0 + k - 1 on V's rows i0 + 1 ... (m of them), its two gemm requests. */
interface BlockProducts { readonly i0: number; readonly k: number; readonly m: number; readonly project: GemmRequest<FloatArray>; readonly update: GemmRequest<FloatArray> }

/** backBlocked's blocks from the last, their products' batches over y, yv and v made once. */
function blockProducts(n: number, y: Float64Array, yv: Float64Array, v: Float64Array): BlockProducts[] {
  const blocks: BlockProducts[] = [];
  for (let i0 = Math.floor((n - 2) / NB) * NB; i0 >= 0; i0 -= NB) {
    const k = Math.min(NB, n - 1 - i0), m = n - 1 - i0;
    const Y = strided(y, { rows: m, cols: k, count: 1 }), V = strided(v, { rows: m, cols: n, ld: n, offset: i0 + 1, count: 1 }), YV = strided(yv, { rows: k, cols: n, ld: NB, count: 1 });
    blocks.push({ i0, k, m, project: { transA: 'T', transB: 'N', alpha: 1, beta: 0, a: Y, b: V, c: YV }, update: { transA: 'N', transB: 'N', alpha: -1, beta: 1, a: Y, b: YV, c: V } });
  }
  return blocks;
}
