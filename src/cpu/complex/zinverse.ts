/**
 * Inverses on complex batches, the reference: LAPACK's ztrtri (via ztrti2), zlauum (via zlauu2),
 * zpotri, and poti (zpotrf then zpotri in one call).
 *
 * trtri: inv(T) over T's triangle; a non-unit T is first scanned for an exactly zero diagonal
 * (both parts zero): info = k for the first one, the matrix left untouched.
 * lauum: the triangle of U U^H (upper) or L^H L (lower), over the triangle; as zlauu2, only the
 * real parts of the diagonal are read (it is a Cholesky factor's), and the result's diagonal is real.
 * potri: inv(A) of a Hermitian positive definite A from its Cholesky factor: trtri, then lauum
 * (inv(U) inv(U)^H or inv(L)^H inv(L)); info from trtri, the matrix untouched where it fails.
 * poti: potrf, then potri; info > 0 from potrf, the matrix then left as potrf leaves it.
 * The other triangle is never read or written.
 */
import type { FloatArray } from '../../core/dtype.js';
import type { LauumRequest, PotriRequest, TrtriRequest } from '../../core/op-specs.js';
import { divideInto, scaleElements } from './scalar.js';
import { Workspace, eachMatrix, triangleRegion } from './workspace.js';
import { multiplyVector } from './ztrmm.js';
import { potrfMatrixComplex } from './zpotrf.js';

const workspace = new Workspace();

export function cpuTrtriComplex(r: TrtriRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  const unit = r.diag === 'unit';
  // a unit diagonal is neither read nor written; a singular T is left untouched
  eachMatrix(r.a, triangleRegion(upper, !unit), workspace, r.info, (w, n) => trtriMatrixComplex(w, n, upper, unit), (info) => info === 0);
}

export function cpuLauumComplex(r: LauumRequest<FloatArray, Int32Array>): void {
  const upper = r.uplo === 'upper';
  eachMatrix(r.a, triangleRegion(upper), workspace, r.info, (w, n) => { lauumMatrixComplex(w, n, upper); return 0; });
}

export function cpuPotriComplex(r: PotriRequest<FloatArray, Int32Array>): void {
  hpdInverse(r, false);
}

export function cpuPotiComplex(r: PotriRequest<FloatArray, Int32Array>): void {
  hpdInverse(r, true);
}

/** potri (A holds the Cholesky factor) or poti (A itself, factored first). */
function hpdInverse(r: PotriRequest<FloatArray, Int32Array>, factorFirst: boolean): void {
  const upper = r.uplo === 'upper';
  // stored where it succeeds, and where potrf failed (left as potrf leaves it); trtri's failure leaves A untouched
  let potrfFailed = false;
  eachMatrix(r.a, triangleRegion(upper), workspace, r.info, (w, n) => {
    const factored = factorFirst ? potrfMatrixComplex(w, n, upper) : 0;
    potrfFailed = factored !== 0;
    if (potrfFailed) return factored;
    const info = trtriMatrixComplex(w, n, upper, false);
    if (info === 0) lauumMatrixComplex(w, n, upper);
    return info;
  }, (info) => info === 0 || potrfFailed);
}

/** Inverts one triangle of a workspace (ld = n, interleaved) in place; returns info. */
export function trtriMatrixComplex(a: Float64Array, n: number, upper: boolean, unit: boolean): number {
  const ld = Math.max(1, n);
  if (!unit) for (let j = 0; j < n; j++) if (a[2 * j * (ld + 1)] === 0 && a[2 * j * (ld + 1) + 1] === 0) return j + 1;
  // ztrti2: column j of inv(T) is -inv(T)(j, j) times the inverted block beside it times T's column j.
  for (let s = 0; s < n; s++) {
    const j = upper ? s : n - 1 - s;
    const d = 2 * j * (ld + 1);
    let [sr, si] = [-1, 0];
    if (!unit) {
      divideInto(a, d, 1, 0, a[d]!, a[d + 1]!);
      [sr, si] = [-a[d]!, -a[d + 1]!];
    }
    // The block already inverted: rows and columns 0..j-1 (upper) or j+1..n-1 (lower).
    const [first, len] = upper ? [0, j] : [j + 1, n - j - 1];
    if (len === 0) continue;
    multiplyVector({ n: len, lower: !upper, unit, conj: false, rs: 1, cs: ld }, a, first * (ld + 1), a, first + j * ld, 1);
    scaleElements(a, first + j * ld, len, 1, sr, si);
  }
  return 0;
}

/**
 * U U^H (upper) or L^H L (lower) over the triangle of a workspace, in place: element (r, c) of the
 * result (r <= c upper, r >= c lower) needs only entries of columns >= c (upper) or rows >= r
 * (lower) that are not yet overwritten when columns go left to right and rows top to bottom.
 */
export function lauumMatrixComplex(a: Float64Array, n: number, upper: boolean): void {
  const ld = Math.max(1, n);
  const at = (i: number, j: number): number => 2 * (i + j * ld);
  // The diagonal of a Cholesky factor is real: its imaginary parts are not read (zlauu2's DBLE).
  const im = (i: number, j: number): number => (i === j ? 0 : a[at(i, j) + 1]!);
  for (let c = 0; c < n; c++) {
    const [r0, r1] = upper ? [0, c + 1] : [c, n];
    for (let r = r0; r < r1; r++) {
      let re = 0;
      let ie = 0;
      // upper: sum_{k >= c} U(r, k) conj(U(c, k)); lower: sum_{k >= r} conj(L(k, r)) L(k, c).
      const k0 = upper ? c : r;
      for (let k = k0; k < n; k++) {
        const [x, y] = upper ? [at(r, k), at(c, k)] : [at(k, c), at(k, r)];
        const xr = a[x]!;
        const xi = upper ? im(r, k) : im(k, c);
        const yr = a[y]!;
        const yi = -(upper ? im(c, k) : im(k, r));
        re += xr * yr - xi * yi;
        ie += xr * yi + xi * yr;
      }
      a[at(r, c)] = re;
      a[at(r, c) + 1] = r === c ? 0 : ie;
    }
  }
}
