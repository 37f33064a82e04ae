/**
 * numpy (and scipy where numpy has no batched routine) as the CPU baseline of `myriad bench`:
 * one python3 process per row builds data of the same shapes, times the routine the way
 * runBench times ours (warm-up, then the median of repeats) and prints milliseconds. Skipped,
 * with one note, where python3 with numpy is not installed.
 *
 * OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for that command alone (some machines set
 * them for old OpenBLAS builds; they slow a current numpy), and numpy gets the thread count
 * ours has (OPENBLAS_NUM_THREADS), so MYRIAD_THREADS=1 compares one thread with one thread.
 * MYRIAD_BENCH_CLOCK=cpu times both by process CPU time (one-thread runs on a shared machine).
 *
 * Routines: gemm, syrk, trmm (tril(A) B) and lauum (L^T L): matmul on the stack; potrf: linalg.cholesky; posv and gesv
 * (and their -many forms, n / 4 right-hand sides): linalg.solve (numpy has no batched Cholesky solve); syev and gesvd: linalg.eigh (eigvalsh for
 * syev-values) and linalg.svd
 * (thin) on the stack; trtri, potri, poti: linalg.inv of the same SPD matrices (numpy has no
 * batched triangular or SPD inverse); geqrf and qr: linalg.qr (mode 'raw': the reflectors and tau;
 * 'reduced': Q and R), orgqr none (numpy has no Q from reflectors); getrf, potrs, getrs, trsm: scipy's
 * lu_factor, cho_solve, lu_solve, solve_triangular per matrix, timed on at most PER_MATRIX_CAP
 * matrices and scaled to the batch (they are loops of independent calls).
 */
import { spawnSync } from 'node:child_process';
import type { ElementType } from '../core/dtype.js';
import { isComplexDType } from '../core/dtype-table.js';
import type { VendorBaseline, VendorRun } from './run.js';
import type { BenchOp } from './workloads.js';

const PER_MATRIX_CAP = 20_000;
/** The operations numpy has no stacked routine for: scipy's per-matrix calls (the script's per_matrix is this list). */
const PER_MATRIX_OPS: ReadonlySet<BenchOp> = new Set<BenchOp>(['getrf', 'potrs', 'getrs', 'trsm']);

const SCRIPT = String.raw`
import sys, time, json
import numpy as np
op, dtype, n, batch, repeats, cap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
cpu_clock = sys.argv[7] == 'cpu'
dt = np.float64 if dtype == 'float64' else np.float32
rng = np.random.default_rng(1)
per_matrix = op in (${[...PER_MATRIX_OPS].map((o) => `'${o}'`).join(', ')})
count = min(batch, cap) if per_matrix else batch
def general(k=count): return rng.uniform(-1, 1, (k, n, n)).astype(dt) + n * np.eye(n, dtype=dt)
def spd():
    a = rng.uniform(-1, 1, (count, n, n)).astype(dt)
    return (a @ a.transpose(0, 2, 1) + n * np.eye(n, dtype=dt)).astype(dt)
b = rng.uniform(-1, 1, (count, n, 1)).astype(dt)
if op == 'gemm':
    x, y = general(), general(); c = np.empty_like(x)
    fn = lambda: np.matmul(x, y, out=c)
elif op == 'syrk':
    x = general(); c = np.empty_like(x)
    fn = lambda: np.matmul(x, x.transpose(0, 2, 1), out=c)
elif op == 'trmm':
    x, y = np.tril(general()), general(); c = np.empty_like(x)
    fn = lambda: np.matmul(x, y, out=c)
elif op == 'lauum':
    x = np.tril(general()); c = np.empty_like(x)
    fn = lambda: np.matmul(x.transpose(0, 2, 1), x, out=c)
elif op == 'potrf':
    a = spd(); fn = lambda: np.linalg.cholesky(a)
elif op in ('posv', 'gesv'):
    a = spd() if op == 'posv' else general(); fn = lambda: np.linalg.solve(a, b)
elif op in ('posv-many', 'gesv-many'):
    # n / 4 right-hand sides (at least 1), as the bench's workload (manyRhs)
    a = spd() if op == 'posv-many' else general(); bm = rng.uniform(-1, 1, (count, n, max(1, n // 4))).astype(dt)
    fn = lambda: np.linalg.solve(a, bm)
elif op == 'syev':
    a = spd(); fn = lambda: np.linalg.eigh(a)
elif op == 'syev-values':
    a = spd(); fn = lambda: np.linalg.eigvalsh(a)
elif op == 'gesvd':
    a = general(); fn = lambda: np.linalg.svd(a, full_matrices=False)
elif op in ('trtri', 'potri', 'poti'):
    a = spd(); fn = lambda: np.linalg.inv(a)
elif op == 'geqrf':
    a = general(); fn = lambda: np.linalg.qr(a, mode='raw')
elif op == 'qr':
    a = general(); fn = lambda: np.linalg.qr(a)
else:
    import scipy.linalg as sl
    if op == 'getrf':
        a = general(); fn = lambda: [sl.lu_factor(a[i], check_finite=False) for i in range(count)]
    elif op == 'potrs':
        f = [sl.cho_factor(m, lower=True) for m in spd()]
        fn = lambda: [sl.cho_solve(f[i], b[i], check_finite=False) for i in range(count)]
    elif op == 'getrs':
        f = [sl.lu_factor(m) for m in general()]
        fn = lambda: [sl.lu_solve(f[i], b[i], check_finite=False) for i in range(count)]
    elif op == 'trsm':
        a = np.tril(general()); bb = general()
        fn = lambda: [sl.solve_triangular(a[i], bb[i], lower=True, check_finite=False) for i in range(count)]
times = []
t_end = time.perf_counter() + 0.05
fn(); fn()
while time.perf_counter() < t_end: fn()
clock = time.process_time if cpu_clock else time.perf_counter
for _ in range(repeats):
    t0 = clock(); fn(); times.append((clock() - t0) * 1e3)
ms = sorted(times)[len(times) // 2] * batch / count
print(json.dumps({"ms": ms, "numpy": np.__version__}))
`;

function pythonEnv(threads: number): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  env.OPENBLAS_NUM_THREADS = String(threads);
  env.OMP_NUM_THREADS = String(threads);
  return env;
}

let note: string | undefined;

/** numpy's version, or null where python3 with numpy is absent: asked once a process (a python3 start costs about a second of CPU). */
let numpyVersion: string | null | undefined;
function installedNumpy(): string | null {
  if (numpyVersion === undefined) {
    const probe = spawnSync('python3', ['-c', 'import numpy; print(numpy.__version__)'], { encoding: 'utf8', env: pythonEnv(1) });
    numpyVersion = probe.status === 0 ? probe.stdout.trim() : null;
  }
  return numpyVersion;
}

/**
 * numpy on the same shapes, or undefined (with a note on stderr, once) where python3 + numpy is
 * absent or MYRIAD_BENCH_NUMPY=0 leaves it out (each size starts a python3 process).
 */
export function numpyBaseline(threads: number, repeats = 5): VendorBaseline | undefined {
  if (process.env.MYRIAD_BENCH_NUMPY === '0') return undefined;
  const version = installedNumpy();
  if (version === null) {
    if (!note) console.error((note = 'numpy baseline skipped: python3 with numpy is not installed'));
    return undefined;
  }
  const name = `numpy ${version} (${threads} thr)`;
  return {
    name,
    prepare(op: BenchOp, dtype: ElementType, n: number, count: number): VendorRun | undefined {
      if (isComplexDType(dtype)) return undefined;
      if (op === 'orgqr') return undefined;
      // numpy has no routine that applies Q from its reflectors.
      if (op === 'ormqr') return undefined;
      // numpy's lstsq takes one matrix (no stacked form): no batched row to compare.
      if (op === 'gels' || op === 'gels-tall' || op === 'gels-wide' || op === 'gels-many') return undefined;
      const r = spawnSync('python3', ['-c', SCRIPT, op, dtype, String(n), String(count), String(repeats), String(PER_MATRIX_CAP), process.env.MYRIAD_BENCH_CLOCK === 'cpu' ? 'cpu' : 'wall'],
        { encoding: 'utf8', env: pythonEnv(threads), maxBuffer: 1 << 20 });
      if (r.status !== 0) {
        console.error(`numpy baseline failed for ${op} n=${n}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
        return undefined;
      }
      const measuredMs = (JSON.parse(r.stdout) as { ms: number }).ms;
      return { run: () => {}, dispose: () => {}, measuredMs, ...(PER_MATRIX_OPS.has(op) ? { routine: `(scipy per matrix, scaled from ${Math.min(count, PER_MATRIX_CAP)})` } : {}) };
    },
  };
}
