/**
 * The complex Jacobi rotation and the column passes around it, shared by the complex eigen and
 * singular value references (zheev.ts, zgesvd.ts). Matrices are interleaved (re, im) pairs; a
 * column is addressed by the float index of its first element.
 *
 * The rotation that annihilates the off-diagonal entry g = |g| e of a Hermitian 2 x 2 block
 * [[a, g], [conj(g), b]] (a, b real) is J = D R D^H, D = diag(1, conj(e)), R the real rotation of
 * [[a, |g|], [|g|, b]] with t = tan(theta) from cot(2 theta) = (b - a) / (2 |g|), c = 1 / sqrt(1 +
 * t^2), s = t c: J(p, p) = J(q, q) = c, J(p, q) = s e, J(q, p) = -s conj(e). It is unitary, and it
 * turns the block into diag(a - t |g|, b + t |g|).
 */
import { rotationTangent } from '../lapack/jacobi.js';

/** The rotation of the Hermitian 2 x 2 block [[a, g], [conj(g), b]]; gAbs = |g| > 0, (er, ei) = g / |g|. */
export interface ComplexRotation { c: number; s: number; t: number; er: number; ei: number }

/** Fills `rot` for the block with diagonal a, b and off-diagonal (gr, gi) of magnitude gAbs > 0. */
export function hermitianRotation(rot: ComplexRotation, a: number, b: number, gr: number, gi: number, gAbs: number): void {
  const t = rotationTangent((b - a) / (2 * gAbs));
  const c = 1 / Math.sqrt(1 + t * t);
  rot.c = c;
  rot.s = t * c;
  rot.t = t;
  if (gAbs >= PHASE_DIRECT_MIN) {
    rot.er = gr / gAbs;
    rot.ei = gi / gAbs;
    return;
  }
  // |g| near or below the smallest normal number (columns of rounding noise beside exactly dependent
  // ones): |g| then carries only a few bits, g / |g| is no unit and J no longer unitary (V lost
  // orthonormality to 1e-3 on a wide complex matrix with repeated columns). The phase from the parts
  // scaled by the larger one: |e| = 1 to rounding whatever g's size.
  const mx = Math.max(Math.abs(gr), Math.abs(gi));
  const xr = gr / mx, xi = gi / mx, h = Math.hypot(xr, xi);
  rot.er = xr / h;
  rot.ei = xi / h;
}

/**
 * Below this |g| the phase is taken from g's scaled parts: above it, g's larger part is normal with
 * its full precision (the smaller one's rounding is below 2^-52 of it), so g / |g| is a unit to
 * rounding and the rotation keeps its bits.
 */
const PHASE_DIRECT_MIN = 2 ** -968;

/** [x y] := [x y] J over two columns of `len` complex elements: x := c x - s conj(e) y, y := s e x + c y. */
export function rotateComplexColumns(z: Float64Array, px: number, py: number, len: number, rot: ComplexRotation): void {
  const { c, s, er, ei } = rot;
  for (let k = 0; k < 2 * len; k += 2) {
    const xr = z[px + k]!;
    const xi = z[px + k + 1]!;
    const yr = z[py + k]!;
    const yi = z[py + k + 1]!;
    // conj(e) y = (er yr + ei yi, er yi - ei yr); e x = (er xr - ei xi, er xi + ei xr).
    z[px + k] = c * xr - s * (er * yr + ei * yi);
    z[px + k + 1] = c * xi - s * (er * yi - ei * yr);
    z[py + k] = s * (er * xr - ei * xi) + c * yr;
    z[py + k + 1] = s * (er * xi + ei * xr) + c * yi;
  }
}

/**
 * One pass of modified Gram-Schmidt over the `cols` columns (each `rows` long, ld = rows) of the
 * nearly orthonormal complex z: the complex form of lapack/jacobi.ts's reorthogonalize.
 */
export function reorthogonalizeComplex(z: Float64Array, rows: number, cols: number): void {
  for (let j = 0; j < cols; j++) {
    const pj = 2 * j * rows;
    let nrm = 0;
    for (let k = 0; k < 2 * rows; k++) nrm += z[pj + k]! ** 2;
    const inv = 1 / Math.sqrt(nrm);
    for (let k = 0; k < 2 * rows; k++) z[pj + k] *= inv;
    for (let c = j + 1; c < cols; c++) {
      const pc = 2 * c * rows;
      // d = z_j^H z_c
      let dr = 0;
      let di = 0;
      for (let k = 0; k < 2 * rows; k += 2) {
        const xr = z[pj + k]!;
        const xi = z[pj + k + 1]!;
        const yr = z[pc + k]!;
        const yi = z[pc + k + 1]!;
        dr += xr * yr + xi * yi;
        di += xr * yi - xi * yr;
      }
      for (let k = 0; k < 2 * rows; k += 2) {
        const xr = z[pj + k]!;
        const xi = z[pj + k + 1]!;
        z[pc + k] -= dr * xr - di * xi;
        z[pc + k + 1] -= dr * xi + di * xr;
      }
    }
  }
}
