/**
 * heev on complex batches (complex128 and complex64, both computed in float64 and rounded once, as
 * the reference): LAPACK's zheev path where plan/complex.ts says so, the complex reference's
 * cyclic Jacobi (src/cpu/complex/zheev.ts) elsewhere.
 *
 * The path, one matrix at a time: the `uplo` triangle loaded into the lower triangle of a float64
 * working matrix (the diagonal's imaginary parts ignored), scaled by a power of two where its largest
 * entry lies outside [2^-200, 2^200]; zhetd2 'L' to a real tridiagonal T = Q^H A Q
 * (kernels/zheev-wasm.ts's reduce); the implicit QL iteration on T (kernels/tridiagonal-ql.ts; for
 * values only the root-free one of kernels/tridiagonal-values.ts), with vectors each sweep's
 * rotations applied to a real Z (zheev-wasm.ts's rotate); the eigenvalues ascending (ties by index,
 * as the reference sorts); with vectors V = Q Z (Z's columns in the eigenvalues' order, then
 * zheev-wasm.ts's back) over A. The working arrays the WebAssembly functions read lie in the
 * thread's wasm memory; the scalar recurrences (the QL iterations) run in JavaScript, two matrices
 * in lockstep.
 *
 * Why not Jacobi here: a Jacobi sweep costs about 48 n^3 real flops with vectors, and the
 * reference makes 5 to 8 of them at n = 8 ... 16 (some 250 n^3 in all); this path costs
 * 16/3 n^3 (reduction) + about 6 n^3 (QL rotations on Z: some n^2 rotations of 6 n flops) +
 * 8 n^3 (V = Q Z), some 19 n^3, and 16/3 n^3 for values only.
 *
 * Semantics kept from the reference: NaN or Inf in the referenced part: info n + 2, w NaN (and A
 * with vectors), nothing else of the batch touched; 'values' leaves A unchanged; info 0 otherwise.
 * A matrix this path cannot take as it stands is handed to the reference whole, untouched (its
 * result is then the reference's, bit for bit): a reflector whose sum of squares underflows (a
 * strongly graded matrix) or a QL iteration past 30 steps for one eigenvalue (the reference's
 * n + 1 then comes from its own sweeps).
 */
import type { FloatArray } from '../../core/dtype.js';
import type { HeevRequest } from '../../core/op-specs.js';
import { complexReference } from '../../cpu/complex/backend.js';
import { cpuScratch, cpuTuning } from '../context.js';
import { moduleFactory } from '../jit/compile.js';
import { qlState, sortAscending, start, type QlState } from '../kernels/tridiagonal-ql.js';
import { startValues, valuesState, type ValuesState } from '../kernels/tridiagonal-values.js';
import { generateZheevWasm, zLd, type ZheevWasmParams } from '../kernels/zheev-wasm.js';
import { heap, loadModule } from '../wasm/runtime.js';
import { planComplexHeev, type EigenForce } from '../plan/eigen.js';
import type { OpOptions } from '../tuning.js';
import { runSquareWithHandBack, stridedView } from './run-batch.js';
import { HAND_BACK, iterate, scaleFor } from './tridiagonal-driver.js';

export type ComplexHeevOptions = OpOptions<EigenForce>;
type HeevReq = HeevRequest<FloatArray, Int32Array>;
type Rotate = (z: number, cs: number, l: number, m: number) => void;
type Back = (a: number, tau: number, v: number) => void;
type Reduce = (a: number, tau: number, d: number, e: number, w: number) => number;
const rotateFor = moduleFactory<ZheevWasmParams, Rotate>(generateZheevWasm, 'rotate', loadModule);
const backFor = moduleFactory<ZheevWasmParams, Back>(generateZheevWasm, 'back', loadModule);
const reduceFor = moduleFactory<ZheevWasmParams, Reduce>(generateZheevWasm, 'reduce', loadModule);


/**
 * One matrix's working arrays in the wasm memory at byte addresses `at`, with float64 views: a (the
 * working matrix, then the reflectors), tau, cs (a sweep's rotations), z (real, ld zLd(n)), v (the
 * eigenvectors), d, e (the tridiagonal) and w (the reduction's scratch); its QL state, its scale.
 */
interface Slot {
  readonly a: Float64Array; readonly z: Float64Array; readonly v: Float64Array; readonly d: Float64Array; readonly e: Float64Array;
  readonly ql: QlState;
  /** The values-only iteration's state. */
  readonly vals: ValuesState;
  scale: number;
  /** zhetd2 'L' on a: false where the matrix goes back. */
  readonly reduce: () => boolean;
  /** V := Q V (null for values only). */
  readonly back: (() => void) | null;
}

/** Two slots (two matrices in lockstep through the QL iteration) and the eigenvalues' order. */
interface Work { readonly slots: readonly [Slot, Slot]; readonly order: Int32Array }

const states: [QlState, QlState] = [qlState(), qlState()];
const valueStates: [ValuesState, ValuesState] = [valuesState(), valuesState()];

function workFor(n: number, vectors: boolean): Work {
  const sizes = { a: 16 * n * n, v: 16 * n * n, z: 8 * n * zLd(n), tau: 16 * n, cs: 16 * n, w: 16 * n, d: 8 * n, e: 8 * n };
  const keys = Object.keys(sizes) as (keyof typeof sizes)[];
  const bytes = keys.reduce((t, k) => t + sizes[k], 0);
  const mem = heap(2 * bytes).f64;
  const reduce = reduceFor({ n });
  const rotate = vectors ? rotateFor({ n }) : null;
  const back = vectors ? backFor({ n }) : null;
  const slot = (q: 0 | 1): Slot => {
    let top = q * bytes;
    const at = {} as Record<keyof typeof sizes, number>;
    for (const k of keys) { at[k] = top; top += sizes[k]; }
    const view = (k: keyof typeof sizes): Float64Array => mem.subarray(at[k] / 8, (at[k] + sizes[k]) / 8);
    const d = view('d'), e = view('e');
    const ql = states[q];
    start(ql, d, e, n, view('cs'), rotate ? (l, m) => rotate(at.z, at.cs, l, m) : null);
    return {
      a: view('a'), z: view('z'), v: view('v'), d, e, ql, vals: valueStates[q], scale: 1,
      reduce: () => reduce(at.a, at.tau, at.d, at.e, at.w) === 1,
      back: back ? () => back(at.a, at.tau, at.v) : null,
    };
  };
  return { slots: [slot(0), slot(1)], order: cpuScratch().i32('zheevOrder', n) };
}

export function fastHeevComplex(r: HeevReq, options: ComplexHeevOptions = {}): void {
  runSquareWithHandBack(r, (n) => planComplexHeev({ n, jobz: r.jobz }, options.tuning ?? cpuTuning(), options.force) === 'tridiagonal',
    (n, p0, count, handBack) => heevRun(r, n, p0, count, handBack), (s) => complexReference.heev(s));
}

/**
 * `count` matrices of order n from p0 (one strided run, or one matrix of a list), two at a time:
 * both loaded and reduced, their QL iterations in lockstep (tridiagonal-driver.ts iterate), then each
 * finished and stored.
 */
function heevRun(r: HeevReq, n: number, p0: number, count: number, defer: (p: number) => void): void {
  const vectors = r.jobz === 'vectors';
  const upper = r.uplo === 'upper';
  const work = workFor(n, vectors);
  const A = stridedView(r.a, p0);
  const W = stridedView(r.w, p0);
  const deferred: number[] = [];
  const info = [0, 0];
  for (let t = 0; t < count; t += 2) {
    const slots: 1 | 2 = t + 1 < count ? 2 : 1;
    for (let q = 0; q < slots; q++) {
      const slot = work.slots[q]!;
      info[q] = prepare(A.data, A.offset + (t + q) * A.stride, A.ld, n, upper, slot);
      if (info[q] !== 0) continue;
      if (vectors) start(slot.ql, slot.d, slot.e, n, slot.ql.cs, slot.ql.rotate);
      else startValues(slot.vals, slot.d, slot.e, n);
    }
    const [s0, s1] = work.slots;
    iterate(vectors, [s0.ql, s1.ql], [s0.vals, s1.vals], info, slots);
    for (let q = 0; q < slots; q++) {
      const slot = work.slots[q]!;
      const p = t + q;
      if (info[q] === HAND_BACK) {
        deferred.push(p0 + p);
        continue;
      }
      r.info[p0 + p] = info[q]!;
      const off = A.offset + p * A.stride, wo = W.offset + p * W.stride;
      if (info[q] !== 0) {
        W.data.fill(NaN, wo, wo + n);
        if (vectors) for (let j = 0; j < n; j++) A.data.fill(NaN, 2 * (off + j * A.ld), 2 * (off + j * A.ld + n));
        continue;
      }
      finish(slot, n, work.order);
      const d = slot.d;
      for (let j = 0; j < n; j++) W.data[wo + j] = d[j]!;
      if (vectors) {
        const v = slot.v;
        // one native copy where the columns lie back to back (complex64 rounds in it)
        if (A.ld === n) A.data.set(v, 2 * off);
        else {
          for (let j = 0; j < n; j++) {
            const to = 2 * (off + j * A.ld), from = 2 * j * n;
            for (let k = 0; k < 2 * n; k++) A.data[to + k] = v[from + k]!;
          }
        }
      }
    }
  }
  // after the run: the reference may use the wasm memory too
  for (const p of deferred) defer(p);
}

/**
 * One matrix at float offset 2 off of data (ld in complex elements) loaded into the slot (the
 * lower triangle, the upper one's conjugates where uplo is upper; the diagonal real), scaled, and
 * reduced to the slot's d and e; with vectors Z set to the identity. Returns 0, n + 2 (NaN or Inf)
 * or HAND_BACK.
 */
function prepare(data: FloatArray, off: number, ld: number, n: number, upper: boolean, slot: Slot): number {
  const a = slot.a;
  const lda = 2 * n;
  // the largest part by a running maximum with no chain through an add or Math.max (a NaN flagged
  // on the side, an infinity above MAX_VALUE: one test at the end)
  let amax = 0;
  let nan = false;
  for (let j = 0; j < n; j++) {
    const col = 2 * (off + j * ld);
    const dr = data[col + 2 * j]!;
    a[j * lda + 2 * j] = dr;
    a[j * lda + 2 * j + 1] = 0;
    const ad = Math.abs(dr);
    if (ad > amax) amax = ad;
    else if (ad !== ad) nan = true;
    if (upper) {
      for (let i = 0; i < j; i++) {
        const re = data[col + 2 * i]!, im = data[col + 2 * i + 1]!;
        a[i * lda + 2 * j] = re;
        a[i * lda + 2 * j + 1] = -im;
        const ar = Math.abs(re), ai = Math.abs(im);
        if (ar > amax) amax = ar;
        else if (ar !== ar) nan = true;
        if (ai > amax) amax = ai;
        else if (ai !== ai) nan = true;
      }
    } else {
      for (let i = j + 1; i < n; i++) {
        const re = data[col + 2 * i]!, im = data[col + 2 * i + 1]!;
        a[j * lda + 2 * i] = re;
        a[j * lda + 2 * i + 1] = im;
        const ar = Math.abs(re), ai = Math.abs(im);
        if (ar > amax) amax = ar;
        else if (ar !== ar) nan = true;
        if (ai > amax) amax = ai;
        else if (ai !== ai) nan = true;
      }
    }
  }
  if (nan || amax > Number.MAX_VALUE) return n + 2;
  const scale = scaleFor(amax);
  if (scale !== 1) for (let j = 0; j < n; j++) for (let k = j * lda + 2 * j; k < (j + 1) * lda; k++) a[k] = a[k]! * scale;
  slot.scale = scale;
  if (!slot.reduce()) return HAND_BACK;
  if (slot.back !== null) {
    const z = slot.z, zld = zLd(n);
    z.fill(0, 0, n * zld);
    for (let j = 0; j < n; j++) z[j * zld + j] = 1;
  }
  return 0;
}

/** After the QL iteration: the eigenvalues ascending and scaled back; with vectors V = Q Z (Z's columns in their order). */
function finish(slot: Slot, n: number, order: Int32Array): void {
  const { d, z, v } = slot;
  const vectors = slot.back !== null;
  sortAscending(d, n, vectors ? order : null);
  if (vectors) {
    const zld = zLd(n), lda = 2 * n;
    for (let j = 0; j < n; j++) {
      const from = order[j]! * zld, to = j * lda;
      for (let k = 0; k < n; k++) {
        v[to + 2 * k] = z[from + k]!;
        v[to + 2 * k + 1] = 0;
      }
    }
    slot.back!();
  }
  if (slot.scale !== 1) for (let j = 0; j < n; j++) d[j] = d[j]! / slot.scale;
}
