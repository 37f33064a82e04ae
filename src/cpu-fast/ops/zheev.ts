/**
 * heev on complex batches (complex128 and complex64, both computed in float64 and rounded once, as
 * the reference): LAPACK's zheev path where plan/complex.ts says so, the complex reference's
 * cyclic Jacobi (src/cpu/complex/zheev.ts) elsewhere.
 *
 * The path, one matrix at a time: the `uplo` triangle loaded into the lower triangle of a float64
 * working matrix (the diagonal's imaginary parts ignored), scaled by a power of two where its largest
 * entry lies outside [2^-200, 2^200]; zhetd2 'L' to a real tridiagonal T = Q^H A Q
 * (kernels/zhetrd-lower.ts); the implicit QL iteration on T (kernels/tridiagonal-ql.ts),
 * with vectors each sweep's rotations applied to a real Z (kernels/zheev-wasm.ts's rotate); the
 * eigenvalues ascending (ties by index, as the reference sorts); with vectors V = Q Z (Z's columns
 * in the eigenvalues' order, then zheev-wasm.ts's back) over A. The working arrays the
 * WebAssembly functions read lie in the thread's wasm memory; the scalar recurrences (the
 * reduction, the QL iteration) run in JavaScript on views of it.
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
import { sortAscending, tridiagonalQl } from '../kernels/tridiagonal-ql.js';
import { generateZheevWasm, zLd, type ZheevWasmParams } from '../kernels/zheev-wasm.js';
import { heap, loadModule } from '../wasm/runtime.js';
import { planComplexHeev, type ComplexHeevForce } from '../plan/complex.js';
import type { OpOptions } from '../tuning.js';
import { sliceRequest } from '../split.js';
import { runBatch, stridedView } from './run-batch.js';

export type ComplexHeevOptions = OpOptions<ComplexHeevForce>;
type HeevReq = HeevRequest<FloatArray, Int32Array>;
type Rotate = (z: number, cs: number, l: number, m: number) => void;
type Back = (a: number, tau: number, v: number) => void;
type Reduce = (a: number, tau: number, d: number, e: number, w: number) => number;
const rotateFor = moduleFactory<ZheevWasmParams, Rotate>(generateZheevWasm, 'rotate', loadModule);
const backFor = moduleFactory<ZheevWasmParams, Back>(generateZheevWasm, 'back', loadModule);
const reduceFor = moduleFactory<ZheevWasmParams, Reduce>(generateZheevWasm, 'reduce', loadModule);

/** Largest entries outside [SCALE_BELOW, SCALE_ABOVE] are scaled to near 1 first. */
const SCALE_BELOW = 2 ** -200;
const SCALE_ABOVE = 2 ** 200;
/** What heevMatrix returns where the matrix goes to the reference. */
const HAND_BACK = -1;

/**
 * One call's working arrays in the wasm memory at byte addresses `at`, with float64 views: a (the
 * working matrix, then the reflectors), tau, cs (a sweep's rotations), z (real, ld zLd(n)), v (the
 * eigenvectors), d, e (the tridiagonal) and w (the reduction's scratch); order in JavaScript scratch.
 */
interface Work {
  readonly a: Float64Array; readonly cs: Float64Array; readonly z: Float64Array; readonly v: Float64Array;
  readonly d: Float64Array; readonly e: Float64Array; readonly order: Int32Array;
  /** zhetd2 'L' on a: false where the matrix goes back. */
  readonly reduce: () => boolean;
  /** The sweep's rotations on z (null for values only). */
  readonly rotate: ((l: number, m: number) => void) | null;
  /** V := Q V (null for values only). */
  readonly back: (() => void) | null;
}

function workFor(n: number, vectors: boolean): Work {
  const sizes = { a: 16 * n * n, v: 16 * n * n, z: 8 * n * zLd(n), tau: 16 * n, cs: 16 * n, w: 16 * n, d: 8 * n, e: 8 * n };
  let top = 0;
  const at = {} as Record<keyof typeof sizes, number>;
  for (const k of Object.keys(sizes) as (keyof typeof sizes)[]) { at[k] = top; top += sizes[k]; }
  const mem = heap(top).f64;
  const view = (k: keyof typeof sizes): Float64Array => mem.subarray(at[k] / 8, (at[k] + sizes[k]) / 8);
  const reduce = reduceFor({ n });
  const rotate = vectors ? rotateFor({ n }) : null;
  const back = vectors ? backFor({ n }) : null;
  return {
    a: view('a'), cs: view('cs'), z: view('z'), v: view('v'), d: view('d'), e: view('e'), order: cpuScratch().i32('zheevOrder', n),
    reduce: () => reduce(at.a, at.tau, at.d, at.e, at.w) === 1,
    rotate: rotate ? (l, m) => rotate(at.z, at.cs, l, m) : null,
    back: back ? () => back(at.a, at.tau, at.v) : null,
  };
}

export function fastHeevComplex(r: HeevReq, options: ComplexHeevOptions = {}): void {
  const fallback = (s: HeevReq): void => complexReference.heev(s);
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const tuning = options.tuning ?? cpuTuning();
      if (planComplexHeev({ n: m.rows }, tuning, options.force) === 'reference') return false;
      heevRun(r, m.rows, p0, count, (p) => fallback(sliceRequest(r, p, p + 1)));
      return true;
    },
    fallback,
  });
}

/** `count` matrices of order n from p0 (one strided run, or one matrix of a list). */
function heevRun(r: HeevReq, n: number, p0: number, count: number, defer: (p: number) => void): void {
  const vectors = r.jobz === 'vectors';
  const upper = r.uplo === 'upper';
  const work = workFor(n, vectors);
  const A = stridedView(r.a, p0);
  const W = stridedView(r.w, p0);
  const deferred: number[] = [];
  for (let t = 0; t < count; t++) {
    const off = A.offset + t * A.stride;
    const info = heevMatrix(A.data, off, A.ld, n, upper, work);
    if (info === HAND_BACK) {
      deferred.push(p0 + t);
      continue;
    }
    r.info[p0 + t] = info;
    const wo = W.offset + t * W.stride;
    if (info !== 0) {
      W.data.fill(NaN, wo, wo + n);
      if (vectors) for (let j = 0; j < n; j++) A.data.fill(NaN, 2 * (off + j * A.ld), 2 * (off + j * A.ld + n));
      continue;
    }
    for (let j = 0; j < n; j++) W.data[wo + j] = work.d[j]!;
    if (vectors) {
      const v = work.v;
      for (let j = 0; j < n; j++) {
        const to = 2 * (off + j * A.ld), from = 2 * j * n;
        for (let k = 0; k < 2 * n; k++) A.data[to + k] = v[from + k]!;
      }
    }
  }
  // after the run: the reference may use the wasm memory too
  for (const p of deferred) defer(p);
}

/**
 * One matrix at float offset 2 off of data (ld in complex elements): its eigenvalues into work.d
 * (scaled back) and, with vectors (work.rotate set), its eigenvectors into work.v (interleaved,
 * ld = n). Returns info (0, or n + 2 for NaN or Inf) or HAND_BACK.
 */
function heevMatrix(data: FloatArray, off: number, ld: number, n: number, upper: boolean, work: Work): number {
  const { a, cs, z, v, d, e, order } = work;
  const lda = 2 * n;
  let amax = 0;
  let bad = 0;
  // A(i, j) of the lower triangle at a[j lda + 2 i]; the upper triangle's A(j, i) conjugated into it
  for (let j = 0; j < n; j++) {
    const col = 2 * (off + j * ld);
    const dr = data[col + 2 * j]!;
    a[j * lda + 2 * j] = dr;
    a[j * lda + 2 * j + 1] = 0;
    bad += dr - dr;
    const ad = Math.abs(dr);
    if (ad > amax) amax = ad;
    if (upper) {
      for (let i = 0; i < j; i++) {
        const re = data[col + 2 * i]!, im = data[col + 2 * i + 1]!;
        a[i * lda + 2 * j] = re;
        a[i * lda + 2 * j + 1] = -im;
        bad += re - re + (im - im);
        const m = Math.max(Math.abs(re), Math.abs(im));
        if (m > amax) amax = m;
      }
    } else {
      for (let i = j + 1; i < n; i++) {
        const re = data[col + 2 * i]!, im = data[col + 2 * i + 1]!;
        a[j * lda + 2 * i] = re;
        a[j * lda + 2 * i + 1] = im;
        bad += re - re + (im - im);
        const m = Math.max(Math.abs(re), Math.abs(im));
        if (m > amax) amax = m;
      }
    }
  }
  if (bad !== 0) return n + 2;
  let scale = 1;
  if (amax !== 0 && (amax < SCALE_BELOW || amax > SCALE_ABOVE)) {
    scale = 2 ** -Math.round(Math.log2(amax));
    for (let j = 0; j < n; j++) for (let k = j * lda + 2 * j; k < (j + 1) * lda; k++) a[k] = a[k]! * scale;
  }
  if (!work.reduce()) return HAND_BACK;
  const vectors = work.rotate !== null;
  const zld = zLd(n);
  if (vectors) {
    z.fill(0, 0, n * zld);
    for (let j = 0; j < n; j++) z[j * zld + j] = 1;
  }
  if (!tridiagonalQl(d, e, n, cs, work.rotate)) return HAND_BACK;
  sortAscending(d, n, vectors ? order : null);
  if (vectors) {
    // V = Z's columns in the eigenvalues' order, then Q V
    for (let j = 0; j < n; j++) {
      const from = order[j]! * zld, to = j * lda;
      for (let k = 0; k < n; k++) {
        v[to + 2 * k] = z[from + k]!;
        v[to + 2 * k + 1] = 0;
      }
    }
    work.back!();
  }
  if (scale !== 1) for (let j = 0; j < n; j++) d[j] = d[j]! / scale;
  return 0;
}
