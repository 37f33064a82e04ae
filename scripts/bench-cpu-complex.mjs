// The fast CPU backend's complex ops on one thread against the complex reference and numpy's stacked
// complex calls: potrf (np.linalg.cholesky), posv and gesv (np.linalg.solve, one right-hand side),
// gemm (np.matmul: C := A B, beta = 0), getrf (scipy's lu_factor per matrix where scipy is
// importable), geqrf (np.linalg.qr mode 'raw'), heev (np.linalg.eigh, eigenvectors), heevvals (heev with
// jobz 'values' against np.linalg.eigvalsh), gesvd
// (np.linalg.svd, thin U and V^H), inv (getrf then getri against np.linalg.inv) and qr (geqrf then orgqr
// against np.linalg.qr, mode 'reduced'). The myriad column
// runs what the fast backend runs for the op (its complex kernels, or the complex reference where it
// has none); process CPU time, the median of 9 calls, ns a matrix. Run pinned on a shared machine:
//   npm run build && MYRIAD_THREADS=1 taskset -c 1 node scripts/bench-cpu-complex.mjs [ops] [sizes] [dtypes]
import { spawnSync } from 'node:child_process';
import { FAST_COMPLEX } from '../dist/src/cpu-fast/ops/zfactor.js';
import { complexReference } from '../dist/src/cpu/complex/backend.js';
import { fastCpuBackend, hostComplexOp } from '../dist/src/cpu-fast/backend.js';

const ops = (process.argv[2] ?? 'potrf,posv,gesv,getrf').split(',');
const HERMITIAN = new Set(['potrf', 'posv', 'heev', 'heevvals']);
const UNWEIGHTED = new Set(['heev', 'heevvals', 'gesvd', 'geqrf', 'qr']);
/** inv is getrf then getri, as np.linalg.inv's one call. */
const inv = (getrf, getri) => (r) => { getrf(r); getri(r); };
/** qr is geqrf then orgqr, as np.linalg.qr's one call (mode 'reduced'). */
const qr = (geqrf, orgqr) => (r) => { geqrf(r); orgqr({ a: r.a, tau: r.tau }); };
const fastOp = (op) => op === 'inv' ? inv(fastOf('getrf'), fastOf('getri')) : op === 'qr' ? qr(fastOf('geqrf'), fastOf('orgqr')) : op === 'heevvals' ? fastOf('heev') : fastOf(op);
const fastOf = (op) => FAST_COMPLEX[op] ?? hostComplexOp(fastCpuBackend.name, op);
const referenceOp = (op) => op === 'inv' ? inv(complexReference.getrf, complexReference.getri) : op === 'qr' ? qr(complexReference.geqrf, complexReference.orgqr)
  : op === 'heevvals' ? complexReference.heev : complexReference[op];
const sizes = (process.argv[3] ?? '2,4,8,12,16').split(',').map(Number);
const dtypes = (process.argv[4] ?? 'complex128,complex64').split(',');
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const NUMPY = String.raw`
import sys, time, json
import numpy as np
op, dt, n, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dt = np.complex128 if dt == 'complex128' else np.complex64
rng = np.random.default_rng(1)
z = lambda *s: rng.uniform(-1, 1, s) + 1j * rng.uniform(-1, 1, s)
g = z(count, n, n)
if op in ('potrf', 'posv'): a = (g @ g.conj().transpose(0, 2, 1) + n * np.eye(n)).astype(dt)
elif op in ('heev', 'heevvals'): a = (g + g.conj().transpose(0, 2, 1)).astype(dt)
elif op in ('geqrf', 'gesvd', 'qr'): a = g.astype(dt)
else: a = (g + 2 * n * np.eye(n)).astype(dt)
b = z(count, n, 1).astype(dt)
if op == 'potrf': fn = lambda: np.linalg.cholesky(a)
elif op in ('posv', 'gesv'): fn = lambda: np.linalg.solve(a, b)
elif op == 'geqrf': fn = lambda: np.linalg.qr(a, mode='raw')
elif op == 'qr': fn = lambda: np.linalg.qr(a)
elif op == 'heev': fn = lambda: np.linalg.eigh(a)
elif op == 'heevvals': fn = lambda: np.linalg.eigvalsh(a)
elif op == 'gesvd': fn = lambda: np.linalg.svd(a, full_matrices=False)
elif op == 'inv': fn = lambda: np.linalg.inv(a)
elif op == 'gemm':
    b = z(count, n, n).astype(dt)
    fn = lambda: np.matmul(a, b)
else:
    import scipy.linalg as sl
    fn = lambda: [sl.lu_factor(a[i], check_finite=False) for i in range(count)]
fn(); fn()
ts = []
for _ in range(9):
    t0 = time.process_time(); fn(); ts.append(time.process_time() - t0)
print(json.dumps(sorted(ts)[4] / count * 1e9))
`;

function numpyNs(op, dtype, n, count) {
  const env = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  const r = spawnSync('python3', ['-c', NUMPY, op, dtype, String(n), String(op === 'getrf' ? Math.min(count, 5000) : count)], { encoding: 'utf8', env });
  return r.status === 0 ? JSON.parse(r.stdout) : NaN;
}

/**
 * A diagonally weighted batch (Hermitian positive definite for the Cholesky ops: B B^H-like weight on
 * a Hermitian matrix); heev's Hermitian and gesvd's and geqrf's general matrices without the weight,
 * since the Jacobi sweeps of heev and gesvd converge faster on a dominant diagonal (numpy's side
 * draws g + g^H and g alike). gesvd's entries are sin(0.37 i^2 + i), of full rank as numpy's
 * random ones (condition 25 ... 85 at n = 16): sin(0.37 i) makes every matrix of rank 4 or less
 * (sin(a + b) = sin a cos b + cos a sin b), on which the Jacobi sweeps took 10 sweeps at n = 16
 * where numpy's kind of matrix takes 8.
 */
function data(op, dtype, n, count) {
  const A = dtype === 'complex64' ? Float32Array : Float64Array;
  const a = new A(2 * n * n * count).map((_, i) => Math.sin(op === 'gesvd' ? 0.37 * i * i + i : i * 0.37));
  for (let p = 0; p < count; p++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const x = 2 * (p * n * n + i + j * n), y = 2 * (p * n * n + j + i * n);
    if (i === j) { if (!UNWEIGHTED.has(op)) a[x] = 2 * n; if (op !== 'gesvd' && op !== 'geqrf' && op !== 'qr') a[x + 1] = 0; } else if (HERMITIAN.has(op) && i > j) { a[y] = a[x]; a[y + 1] = -a[x + 1]; }
  }
  return { a, b: new A(2 * n * (op === 'gemm' ? n : 1) * count).map((_, i) => Math.cos(i)) };
}

function time(run, op, dtype, n, count, d) {
  const ts = [];
  // Untimed calls first, as the numpy side makes: V8 optimises a kernel during its first calls.
  for (let rep = -10; rep < 9; rep++) {
    const a = { kind: 'strided', data: d.a.slice(), offset: 0, ld: n, stride: n * n, rows: n, cols: n, count, dtype };
    const nb = op === 'gemm' ? n : 1;
    const b = { kind: 'strided', data: d.b.slice(), offset: 0, ld: n, stride: n * nb, rows: n, cols: nb, count, dtype };
    const r = { uplo: 'lower', a, b, info: new Int32Array(count), ipiv: new Int32Array(n * count), pivotStride: n };
    const c = op === 'gemm' ? { ...b, data: output(d.b.constructor, d.b.length) } : undefined;
    const request = requestFor(op, n, count, dtype, r, a, b, c);
    const t0 = cpuMs();
    run(request);
    if (rep >= 0) ts.push(cpuMs() - t0);
  }
  return (ts.sort((x, y) => x - y)[4] / count) * 1e6;
}

/**
 * An output array, allocated and written once here, outside the timing: a fresh typed array's pages
 * are mapped at their first write, which inside the timing cost up to a few microseconds a matrix
 * (n = 4 gesvd: 3.3 us a matrix into fresh U and VT, 1.1 us into written ones; 2-core EPYC VM).
 */
const output = (A, len) => new A(len).fill(0);

/** The request of `op` over A (and B, C where it has them); outputs allocated here, outside the timing. */
function requestFor(op, n, count, dtype, r, a, b, c) {
  const real = dtype === 'complex64' ? Float32Array : Float64Array;
  const column = (data, complex) => ({ kind: 'strided', data, offset: 0, ld: n, stride: n, rows: n, cols: 1, count, ...(complex ? { dtype } : {}) });
  const square = () => ({ ...a, data: output(real, 2 * n * n * count) });
  switch (op) {
    case 'potrf': return { uplo: r.uplo, a, info: r.info };
    case 'getrf': case 'inv': return { a, ipiv: r.ipiv, pivotStride: n, info: r.info };
    case 'gemm': return { transA: 'N', transB: 'N', alpha: [1, 0], a, b, beta: [0, 0], c };
    case 'geqrf': case 'qr': return { a, tau: column(output(real, 2 * n * count), true), info: r.info };
    case 'heev': case 'heevvals': return { jobz: op === 'heev' ? 'vectors' : 'values', uplo: r.uplo, a, w: column(output(real, n * count), false), info: r.info };
    case 'gesvd': return { a, s: column(output(real, n * count), false), u: square(), vt: square(), info: r.info };
    default: return r;
  }
}

// The Jacobi ops (heev, gesvd) cost tens of times a factorisation: a smaller batch keeps a row to seconds.
const JACOBI = new Set(['heev', 'heevvals', 'gesvd']);
const countFor = (n, op) => Math.floor(Math.max(1000, Math.min(20000, Math.floor(2e6 / (n * n)))) / (JACOBI.has(op) ? 10 : 1));
// One untimed row first: the first row of a process otherwise came out up to 2x slow (n = 2 gemm;
// process CPU time counts the garbage collector's threads, busiest while the heap first grows).
{
  const n = sizes[0], count = countFor(n, ops[0]);
  time(fastOp(ops[0]), ops[0], dtypes[0], n, count, data(ops[0], dtypes[0], n, count));
}
console.log('| op | dtype | n | batch | myriad cpu ns | reference ns | numpy ns | numpy / myriad |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const op of ops) for (const dtype of dtypes) for (const n of sizes) {
  const count = countFor(n, op);
  const d = data(op, dtype, n, count);
  const fast = time(fastOp(op), op, dtype, n, count, d);
  const ref = time(referenceOp(op), op, dtype, n, count, d);
  const np = numpyNs(op, dtype, n, count);
  console.log(`| ${op} | ${dtype} | ${n} | ${count} | ${fast.toFixed(0)} | ${ref.toFixed(0)} | ${np.toFixed(0)} | ${(np / fast).toFixed(2)} |`);
}
