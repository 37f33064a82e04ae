// The work of the per-thread syev designs for n <= 8, per matrix, for scripts/probe/syev-small.mjs:
// floating-point instructions counted from the generators' text (kernels/ql-thread/generate.ts,
// kernels/jacobi/generate-thread.ts), with the data-dependent parts (QL iterations and their block
// sizes, Jacobi sweeps and rotations) measured by a CPU mirror of each kernel's algorithm: the same
// reduction, convergence tests, shifts and pair order, in float64, the tests at the arithmetic's eps.
//
// Counts are [fma, add, special]: fma a fused multiply-add (2 flops), add an add, subtract or
// multiply (1), special a division, square root or reciprocal square root (1 flop, counted as one
// instruction though each is a sequence of several: the instruction counts are lower bounds).
// a * b + c as written is one fma (nvcc contracts it); |x|, compares and selects are not counted.
//   node scripts/probe/syev-small-count.mjs   (prints the table of counts for random matrices)

/** tan of the rotation angle from cot(2 theta) = zeta (common/rotation.ts). */
const tangent = (zeta) => {
  const az = Math.abs(zeta), sg = zeta >= 0 ? 1 : -1;
  return az > 1e150 ? sg / (2 * az) : sg / (az + Math.sqrt(1 + az * az));
};

/** The QL kernel's tridiagonalization (dsytd2 'L', as generate.ts writes it) of the full n x n `a` (column-major): d and e. */
function tridiagonal(a, n) {
  const at = (i, j) => a[i + j * n];
  const set = (i, j, x) => { a[i + j * n] = x; a[j + i * n] = x; };
  const d = new Float64Array(n), e = new Float64Array(Math.max(0, n - 1));
  for (let k = 0; k + 2 < n; k++) {
    const alpha = at(k + 1, k);
    let sigma = 0;
    for (let i = k + 2; i < n; i++) sigma += at(i, k) ** 2;
    const xx = alpha * alpha + sigma, norm = Math.sqrt(xx), beta = alpha >= 0 ? -norm : norm;
    const u = [];
    for (let i = k + 1; i < n; i++) u[i] = i === k + 1 ? alpha - beta : at(i, k);
    const h = sigma === 0 ? 0 : 1 / (Math.abs(alpha) * norm + xx);
    d[k] = at(k, k);
    e[k] = sigma === 0 ? alpha : beta;
    const p = [];
    for (let i = k + 1; i < n; i++) { let s = 0; for (let j = k + 1; j < n; j++) s += at(i, j) * u[j]; p[i] = h * s; }
    let up = 0;
    for (let i = k + 1; i < n; i++) up += u[i] * p[i];
    const half = 0.5 * h * up;
    const q = [];
    for (let i = k + 1; i < n; i++) q[i] = p[i] - half * u[i];
    for (let i = k + 1; i < n; i++) for (let j = i; j < n; j++) set(i, j, at(i, j) - u[i] * q[j] - q[i] * u[j]);
  }
  if (n > 1) { d[n - 2] = at(n - 2, n - 2); d[n - 1] = at(n - 1, n - 1); e[n - 2] = at(n - 2, n - 1); } else d[0] = at(0, 0);
  return { d, e };
}

/**
 * The QL kernel's iteration (generate.ts qlRow) on the tridiagonal of `a`: passes of the
 * convergence scan (tests made), 2 x 2 closed forms, QL sweeps and their steps (rotations).
 */
export function qlWork(a, n, eps, maxit = 30) {
  const { d, e } = tridiagonal(Float64Array.from(a), n);
  const w = { tests: 0, closed: 0, sweeps: 0, steps: 0, converged: true };
  let iterations = 0;
  for (let l = 0; l + 1 < n && w.converged; l++) {
    for (;;) {
      w.tests += n - 1 - l;
      let m = n - 1;
      for (let i = n - 2; i >= l; i--) if (Math.abs(e[i]) <= eps * (Math.abs(d[i]) + Math.abs(d[i + 1]))) m = i;
      if (m === l) break;
      if (iterations === maxit * n) { w.converged = false; break; }
      ++iterations;
      if (m === l + 1) {
        const t = tangent((d[l + 1] - d[l]) / (2 * e[l]));
        d[l] -= t * e[l]; d[l + 1] += t * e[l]; e[l] = 0;
        w.closed++;
        continue;
      }
      let g = d[m] - d[l] + e[l] * tangent((d[l + 1] - d[l]) / (2 * e[l]));
      let c = 1, s = 1, p = 0;
      for (let i = m - 1; i >= l; i--) {
        const f = s * e[i], b = c * e[i];
        const r0 = Math.hypot(g, f);
        c = r0 === 0 ? 1 : g / r0; s = r0 === 0 ? 0 : f / r0;
        if (i + 1 < m) e[i + 1] = r0 === 0 ? g : r0;
        g = d[i + 1] - p;
        const r = (d[i] - g) * s + 2 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        w.steps++;
      }
      d[l] -= p; e[l] = g;
      w.sweeps++;
    }
  }
  return w;
}

/** The per-thread Jacobi kernel's cyclic sweeps (generate-thread.ts) on the full `a`: sweeps (tests n (n - 1) / 2 each) and rotations. */
export function jacobiWork(a, n, eps, maxSweeps = 30) {
  const m = Float64Array.from(a);
  const at = (i, j) => m[i + j * n];
  const set = (i, j, x) => { m[i + j * n] = x; m[j + i * n] = x; };
  const tol = Math.sqrt(n) * eps;
  const w = { sweeps: 0, rotations: 0, converged: true };
  let done = n < 2;
  for (let sweep = 0; sweep < maxSweeps && !done; sweep++) {
    w.sweeps++;
    let rotated = false;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) {
      const apq = at(p, q), app = at(p, p), aqq = at(q, q);
      if (apq === 0 || !(Math.abs(apq) > tol * Math.sqrt(Math.abs(app)) * Math.sqrt(Math.abs(aqq)))) continue;
      const t = tangent((aqq - app) / (2 * apq)), c = 1 / Math.sqrt(1 + t * t), s = t * c;
      for (let k = 0; k < n; k++) if (k !== p && k !== q) {
        const x = at(k, p), y = at(k, q);
        set(k, p, c * x - s * y); set(k, q, s * x + c * y);
      }
      set(p, p, app - t * apq); set(q, q, aqq + t * apq); set(p, q, 0);
      rotated = true;
      w.rotations++;
    }
    done = !rotated;
  }
  w.converged = done;
  return w;
}

const add = (...xs) => xs.reduce((acc, x) => acc.map((v, i) => v + x[i]), [0, 0, 0]);
const times = (k, x) => x.map((v) => k * v);

/** The QL kernel's counts per matrix from its work `w` (qlWork); `single`: float32 arithmetic (rsqrtf's Newton step). */
export function qlCounts(n, vectors, w, single) {
  let fixed = [0, 0, 0];
  for (let k = 0; k + 2 < n; k++) {
    const m = n - k - 1, q = m - 1;
    fixed = add(fixed, [2 * m * m + 3 * m - 1, 2 * m + 5, 2]);                 // Householder column k
    if (vectors) fixed = add(fixed, [2 * q * q - q + 1, 4 * q + 1, 0]);        // Q := H_k Q
  }
  const newton = single ? [2, 2, 0] : [0, 0, 0];
  const rotateColumns = vectors ? [2 * n, 2 * n, 0] : [0, 0, 0];
  const closed = add([4, 4, 4], newton, rotateColumns);
  const sweep = [2, 5, 3];                                                     // the shift and d_l -= p
  const step = add([3, 12, 1], newton, rotateColumns);
  return add(fixed, times(w.tests, [0, 2, 0]), times(w.closed, closed), times(w.sweeps, sweep), times(w.steps, step));
}

/** The Jacobi kernel's counts per matrix from its work `w` (jacobiWork). */
export function jacobiCounts(n, vectors, w) {
  const test = [0, 2, 2];
  const rotation = add([4 + 2 * (n - 2), 4 + 2 * (n - 2), 5], vectors ? [2 * n, 2 * n, 0] : [0, 0, 0]);
  return add(times((w.sweeps * n * (n - 1)) / 2, test), times(w.rotations, rotation));
}

/** flops (an fma 2) and instructions (each 1) of counts [fma, add, special]. */
export const flops = ([f, a, s]) => 2 * f + a + s;
export const instructions = ([f, a, s]) => f + a + s;

/** Mean work of each design over `sample` matrices of `host` (n x n each, full symmetric). */
export function meanWork(host, n, sample, eps) {
  const count = Math.min(sample, host.length / (n * n));
  const sum = { ql: { tests: 0, closed: 0, sweeps: 0, steps: 0 }, jacobi: { sweeps: 0, rotations: 0 } };
  for (let k = 0; k < count; k++) {
    const a = Float64Array.from(host.subarray(k * n * n, (k + 1) * n * n));
    const q = qlWork(a, n, eps), j = jacobiWork(a, n, eps);
    for (const key of Object.keys(sum.ql)) sum.ql[key] += q[key] / count;
    for (const key of Object.keys(sum.jacobi)) sum.jacobi[key] += j[key] / count;
  }
  return sum;
}

// Standalone: the counts for random matrices (the probe's generator), both eps.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { Random, randomSymmetric } = await import('../../dist/src/bench/data.js');
  const rng = new Random(9);
  console.log('| eps | n | QL sweeps | QL steps | QL 2x2 | Jacobi sweeps | Jacobi rotations | QL flops V / N | Jacobi flops V / N |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [name, eps] of [['float64', 2 ** -52], ['float32', 2 ** -23]]) for (let n = 2; n <= 8; n++) {
    const w = meanWork(randomSymmetric('float64', n, 2000, rng), n, 2000, eps);
    const single = name === 'float32';
    const f = (v) => flops(v).toFixed(0);
    console.log(`| ${name} | ${n} | ${w.ql.sweeps.toFixed(2)} | ${w.ql.steps.toFixed(2)} | ${w.ql.closed.toFixed(2)} | ${w.jacobi.sweeps.toFixed(2)} | ${w.jacobi.rotations.toFixed(2)} | ${f(qlCounts(n, true, w.ql, single))} / ${f(qlCounts(n, false, w.ql, single))} | ${f(jacobiCounts(n, true, w.jacobi))} / ${f(jacobiCounts(n, false, w.jacobi))} |`);
  }
}
