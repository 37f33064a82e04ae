/**
 * Residuals of eigen and singular value decompositions that do not depend on the library, in
 * float64 on interleaved (real, imaginary) pairs (`parts` 2) or real data (`parts` 1), column-major,
 * and the deterministic matrices the extreme-range tests feed them (graded D B D, plain random).
 */

/** Deterministic values in [-0.5, 0.5). */
export function values(length: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length }, () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; });
}

/** D B D, n x n, column-major, D's entries 10^-decades ... 10^decades; `parts` 2: Hermitian (interleaved), 1: symmetric. */
export function gradedSymmetric(n: number, parts: 1 | 2, decades: number, seed: number): Float64Array {
  const b = values(parts * n * n, seed), d = values(n, seed + 1).map((u) => 10 ** (2 * decades * u));
  const a = new Float64Array(parts * n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const lo = Math.min(i, j), hi = Math.max(i, j);
      const at = parts * (i + j * n), from = parts * (hi + lo * n);   // B's lower triangle, mirrored
      a[at] = d[i]! * b[from]! * d[j]!;
      if (parts === 2) a[at + 1] = i === j ? 0 : (i > j ? 1 : -1) * d[i]! * b[from + 1]! * d[j]!;
    }
  }
  return a;
}

/** m x n values with row i scaled by 10^-decades ... 10^decades (`parts` 2: interleaved complex). */
export function gradedRows(m: number, n: number, parts: 1 | 2, decades: number, seed: number): Float64Array {
  const a = values(parts * m * n, seed), d = values(m, seed + 1).map((u) => 10 ** (2 * decades * u));
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) for (let h = 0; h < parts; h++) a[parts * (i + j * m) + h]! *= d[i]!;
  return a;
}

type C = [number, number];
const at = (x: ArrayLike<number>, parts: 1 | 2, i: number, j: number, ld: number): C => [x[parts * (i + j * ld)]!, parts === 2 ? x[parts * (i + j * ld) + 1]! : 0];

/** ||A V - V W||_F / ||A||_F and ||V^H V - I||_F for A n x n, V's n columns, W real. */
export function eigenResiduals(a: ArrayLike<number>, v: ArrayLike<number>, w: ArrayLike<number>, n: number, parts: 1 | 2): { res: number; orth: number } {
  let res = 0, na = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      let re = 0, im = 0;
      for (let k = 0; k < n; k++) {
        const [ar, ai] = at(a, parts, i, k, n), [vr, vi] = at(v, parts, k, j, n);
        re += ar * vr - ai * vi; im += ar * vi + ai * vr;
      }
      const [vr, vi] = at(v, parts, i, j, n);
      res += (re - vr * w[j]!) ** 2 + (im - vi * w[j]!) ** 2;
      const [ar, ai] = at(a, parts, i, j, n);
      na += ar * ar + ai * ai;
    }
  }
  return { res: na === 0 ? Math.sqrt(res) : Math.sqrt(res / na), orth: orthogonality(v, parts, n, n, false) };
}

/** ||X^H X - I||_F for the cols columns of X (rows x cols, ld = rows), or ||X X^H - I||_F for its rows where `byRows`. */
export function orthogonality(x: ArrayLike<number>, parts: 1 | 2, rows: number, cols: number, byRows: boolean): number {
  const k = byRows ? rows : cols, len = byRows ? cols : rows;
  const el = (e: number, c: number): C => (byRows ? at(x, parts, c, e, rows) : at(x, parts, e, c, rows));
  let sum = 0;
  for (let p = 0; p < k; p++) for (let q = 0; q < k; q++) {
    let re = 0, im = 0;
    for (let e = 0; e < len; e++) {
      const [ar, ai] = el(e, p), [br, bi] = el(e, q);
      re += ar * br + ai * bi; im += ar * bi - ai * br;
    }
    sum += (re - (p === q ? 1 : 0)) ** 2 + im ** 2;
  }
  return Math.sqrt(sum);
}

/** ||A - U S VT||_F / ||A||_F for A m x n, U m x k, VT k x n (ld k), S real. */
export function svdResidual(a: ArrayLike<number>, u: ArrayLike<number>, s: ArrayLike<number>, vt: ArrayLike<number>, m: number, n: number, parts: 1 | 2): number {
  const k = Math.min(m, n);
  let res = 0, na = 0;
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
    let re = 0, im = 0;
    for (let l = 0; l < k; l++) {
      const [ur, ui] = at(u, parts, i, l, m), [vr, vi] = at(vt, parts, l, j, k);
      re += s[l]! * (ur * vr - ui * vi); im += s[l]! * (ur * vi + ui * vr);
    }
    const [xr, xi] = at(a, parts, i, j, m);
    res += (xr - re) ** 2 + (xi - im) ** 2;
    na += xr * xr + xi * xi;
  }
  return na === 0 ? Math.sqrt(res) : Math.sqrt(res / na);
}
