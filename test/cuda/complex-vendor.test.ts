/**
 * The complex vendor column of `myriad bench` without a GPU:
 * - the C signatures of the bindings (cuBLAS z/cgetrfBatched, z/cgetrsBatched, z/ctrsmBatched,
 *   cuSOLVER z/cpotrfBatched, z/cpotrsBatched), declared as strings: parsed by koffi, and their
 *   parameter types those of the vendor's documented prototypes, in order;
 * - every native call the bench's vendor runs make (bench/complex-vendor.ts), recorded by handles
 *   whose native call is replaced: the argument list matches its prototype argument by argument
 *   (int32s, device addresses, the host alpha pair, the host info out-parameter), with the sizes,
 *   enums and pointer arrays (a matrix of pairs apart) the workload means;
 * - the checks before native code: the parts' dtype, pairs (even strides and offsets, aligned
 *   addresses), bounds, potrs's nrhs = 1;
 *   a routine the library lacks is NOT_SUPPORTED (a row's note), not a crash;
 * - the LU check of getrf / gesv on a fake device: no note for right factors, a note for wrong ones;
 * - heev and gesvd (cuSOLVER z/cheevjBatched, z/cgesvdjBatched, n <= 32): their prototypes, the
 *   calls and the workspace (lwork complex elements: 2 lwork floats), the checks before native
 *   code (floats counted as pairs, W and S real, orders up to 32), NOT_RUN in the row above 32, the
 *   check of the vendor's values against the CPU reference.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import koffi from 'koffi';
import '../../src/cuda/runtime/ffi-cuda.js';
import { Cublas, COMPLEX_SOLVE_PROTOTYPES } from '../../src/cuda/baselines/cublas.js';
import { Cusolver, COMPLEX_CHOLESKY_PROTOTYPES, COMPLEX_JACOBI_PROTOTYPES } from '../../src/cuda/baselines/cusolver.js';
import { BatchPointers } from '../../src/cuda/baselines/pointers.js';
import { VendorError } from '../../src/cuda/runtime/errors.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { strided } from '../../src/core/batch.js';
import { open } from '../../src/api/open.js';
import { prepareComplexVendor } from '../../src/bench/complex-vendor.js';
import type { VendorChoice, VendorRun } from '../../src/bench/run.js';
import { Random, randomComplexGeneral, randomHermitian, randomHpd, randomMatrices } from '../../src/bench/data.js';
import { complexSingularValues, hermitianEigenvalues } from '../../src/bench/values-check.js';
import { FakeDevice } from '../helpers/fake-gpus.js';

/** The parameter types of a prototype string, in order (the names dropped). */
function parameterTypes(prototype: string): { name: string; types: string[] } {
  const m = /^int (\w+)\((.*)\)$/.exec(prototype);
  assert.ok(m, prototype);
  return { name: m[1]!, types: m[2]!.split(',').map((p) => p.trim().replace(/\s*\w+$/, '')) };
}

// The vendor's prototypes (cuBLAS and cuSOLVER documentation), T cuDoubleComplex (Z) or cuFloatComplex (C):
//   cublasStatus_t cublasZgetrfBatched(cublasHandle_t, int n, T *const Aarray[], int lda, int *PivotArray, int *infoArray, int batchSize)
//   cublasStatus_t cublasZgetrsBatched(cublasHandle_t, cublasOperation_t trans, int n, int nrhs, const T *const Aarray[], int lda,
//                                      const int *devIpiv, T *const Barray[], int ldb, int *info, int batchSize)        (info: host)
//   cublasStatus_t cublasZtrsmBatched(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,
//                                     int m, int n, const T *alpha, const T *const A[], int lda, T *const B[], int ldb, int batchCount)
//   cusolverStatus_t cusolverDnZpotrfBatched(cusolverDnHandle_t, cublasFillMode_t uplo, int n, T *Aarray[], int lda, int *infoArray, int batchSize)
//   cusolverStatus_t cusolverDnZpotrsBatched(cusolverDnHandle_t, cublasFillMode_t uplo, int n, int nrhs, T *Aarray[], int lda,
//                                            T *Barray[], int ldb, int *info, int batchSize)                            (info: device)
//   cusolverStatus_t cusolverDnZheevjBatched_bufferSize(cusolverDnHandle_t, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
//                                            const T *A, int lda, const R *W, int *lwork, syevjInfo_t params, int batchSize)
//   cusolverStatus_t cusolverDnZheevjBatched(cusolverDnHandle_t, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda,
//                                            R *W, T *work, int lwork, int *info, syevjInfo_t params, int batchSize)
//   cusolverStatus_t cusolverDnZgesvdjBatched_bufferSize(cusolverDnHandle_t, cusolverEigMode_t jobz, int m, int n, const T *A, int lda,
//                                            const R *S, const T *U, int ldu, const T *V, int ldv, int *lwork, gesvdjInfo_t params, int batchSize)
//   cusolverStatus_t cusolverDnZgesvdjBatched(cusolverDnHandle_t, cusolverEigMode_t jobz, int m, int n, T *A, int lda, R *S, T *U, int ldu,
//                                            T *V, int ldv, T *work, int lwork, int *info, gesvdjInfo_t params, int batchSize)
//   (R double for Z, float for C; lwork: host, out; the rest device addresses.)
// Enums are C ints; device addresses (the pointer arrays, pivots, device info) CUdeviceptr; the
// host alpha a pair of the part type; the host info an out-parameter.
const EXPECTED: Readonly<Record<string, readonly string[]>> = Object.fromEntries((['Z', 'C'] as const).flatMap((t) => {
  const part = t === 'Z' ? 'double' : 'float';
  return [
    [`cublas${t}getrfBatched`, ['cublasHandle_t', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'CUdeviceptr', 'int']],
    [`cublas${t}getrsBatched`, ['cublasHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'CUdeviceptr', 'int', '_Out_ int *', 'int']],
    [`cublas${t}trsmBatched`, ['cublasHandle_t', 'int', 'int', 'int', 'int', 'int', 'int', `const ${part} *`, 'CUdeviceptr', 'int', 'CUdeviceptr', 'int', 'int']],
    [`cublas${t}geqrfBatched`, ['cublasHandle_t', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', '_Out_ int *', 'int']],
    [`cusolverDn${t}potrfBatched`, ['cusolverDnHandle_t', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int']],
    [`cusolverDn${t}potrsBatched`, ['cusolverDnHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int']],
    [`cusolverDn${t}heevjBatched_bufferSize`, ['cusolverDnHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', '_Out_ int *', 'syevjInfo_t', 'int']],
    [`cusolverDn${t}heevjBatched`, ['cusolverDnHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'CUdeviceptr', 'int', 'CUdeviceptr', 'syevjInfo_t', 'int']],
    [`cusolverDn${t}gesvdjBatched_bufferSize`, ['cusolverDnHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int', '_Out_ int *', 'gesvdjInfo_t', 'int']],
    [`cusolverDn${t}gesvdjBatched`, ['cusolverDnHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'gesvdjInfo_t', 'int']],
  ] as const;
}));

const PROTOTYPES = new Map([...COMPLEX_SOLVE_PROTOTYPES, ...COMPLEX_CHOLESKY_PROTOTYPES, ...COMPLEX_JACOBI_PROTOTYPES].map((p) => [parameterTypes(p).name, p]));

describe('the complex bindings: C signatures declared as strings', () => {
  it('one per routine and precision, each the documented parameter list, each parsed by koffi', () => {
    assert.deepEqual([...PROTOTYPES.keys()].sort(), Object.keys(EXPECTED).sort());
    for (const [name, p] of PROTOTYPES) {
      assert.deepEqual(parameterTypes(p).types, EXPECTED[name], name);
      assert.doesNotThrow(() => koffi.proto(p), name);
    }
  });
});

interface Call { name: string; args: unknown[] }

/** Checks a recorded call's arguments (the handle excluded) against its prototype, one by one. */
function checkCall(call: Call): void {
  const p = PROTOTYPES.get(call.name);
  assert.ok(p, `${call.name}: not a bound complex routine`);
  const types = parameterTypes(p).types.slice(1);
  assert.equal(call.args.length, types.length, `${call.name}: ${call.args.length} arguments for ${types.length} parameters`);
  types.forEach((type, i) => {
    const v = call.args[i];
    const what = `${call.name} argument ${i + 2} (${type})`;
    if (type === 'int') assert.ok(typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31, `${what}: ${String(v)}`);
    else if (type === 'CUdeviceptr') assert.equal(typeof v, 'bigint', what);
    else if (type === 'const double *') assert.ok(v instanceof Float64Array && v.length === 2, what);
    else if (type === 'const float *') assert.ok(v instanceof Float32Array && v.length === 2, what);
    else if (type === '_Out_ int *') assert.ok(Array.isArray(v) && v.length === 1 && typeof v[0] === 'number', what);
    else if (type === 'syevjInfo_t' || type === 'gesvdjInfo_t') assert.ok(typeof v === 'object' && v !== null && (v as { kind?: string }).kind === type, what);
    else assert.fail(`${what}: no rule`);
  });
}

/**
 * Vendor handles whose native calls are recorded (and `onCall` run) instead of made; `missing`
 * routines absent. The Jacobi routines' parameters are made (`made`) and destroyed (`destroyed`)
 * by stand-ins; their workspace is allocated on `dev`.
 */
function recordingHandles(onCall: (c: Call) => void = () => {}, missing: readonly string[] = [], dev?: FakeDevice):
  { blas(): Cublas; solver(): Cusolver; calls: Call[]; made: unknown[]; destroyed: unknown[] } {
  const calls: Call[] = [];
  const made: unknown[] = [], destroyed: unknown[] = [];
  const api: Record<string, unknown> = Object.fromEntries([...PROTOTYPES.keys()].filter((k) => !missing.includes(k)).map((k) => [k, () => 0]));
  for (const info of ['syevjInfo_t', 'gesvdjInfo_t']) {
    const name = info === 'syevjInfo_t' ? 'SyevjInfo' : 'GesvdjInfo';
    api[`cusolverDnCreate${name}`] = (out: unknown[]) => { out[0] = { kind: info }; made.push(out[0]); return 0; };
    api[`cusolverDnDestroy${name}`] = (p: unknown) => { destroyed.push(p); return 0; };
  }
  const call = (name: string, ...args: unknown[]): void => { const c = { name, args }; calls.push(c); onCall(c); };
  const blas = Object.assign(Object.create(Cublas.prototype) as Cublas, { api, call });
  const solver = Object.assign(Object.create(Cusolver.prototype) as Cusolver, { api, call, ...(dev ? { dev: Object.assign(dev, { activate() {} }) } : {}) });
  return { blas: () => blas, solver: () => solver, calls, made, destroyed };
}

/** The run of a vendor's one routine: the run itself, or of a choice of routines the one named (heev's). */
function runOf(v: VendorRun | VendorChoice | undefined, routine?: string): VendorRun | undefined {
  if (v === undefined || !('candidates' in v)) return v;
  const c = v.candidates.find((x) => x.routine === routine);
  assert.ok(c, `a choice with ${routine}: ${v.candidates.map((x) => x.routine).join(', ')}`);
  return c.prepare();
}

/** The workload's arrays on a fake device: A (and B) as pairs of the parts' dtype, the pristine copy, the own pivots. */
function fakeArrays(dev: FakeDevice, real: 'float64' | 'float32', n: number, count: number, nrhs: number) {
  const rng = new Random(7);
  const a0 = dev.upload(randomComplexGeneral(real, n, count, rng));
  const a = dev.upload(dev.download(a0));
  const b = nrhs > 0 ? dev.upload(randomMatrices(real, 2 * n, nrhs, count, rng)) : undefined;
  const ipiv = dev.alloc('int32', n * count);
  return { a, a0, ipiv, ...(b !== undefined ? { b } : {}) };
}

/** The addresses a pointer array holds (a fake array's base is 0). */
const addresses = (dev: FakeDevice, count: number): bigint[][] =>
  [...dev.live].filter((x) => x.dtype === 'int64' && x.length === count).map((x) => [...(x.host as BigInt64Array)]);

describe('the complex vendor runs of the bench: every native call as its prototype says', () => {
  const n = 5, count = 3;
  for (const [dtype, real, letter, bytes] of [['complex128', 'float64', 'Z', 8], ['complex64', 'float32', 'C', 4]] as const) {
    it(`${dtype}: potrf, posv, getrf, gesv, trsm, geqrf`, () => {
      const expect: Record<string, { nrhs: number; calls: [string, unknown[]][] }> = {
        potrf: { nrhs: 0, calls: [[`cusolverDn${letter}potrfBatched`, [0, n, 'A', n, 'info', count]]] },
        posv: { nrhs: 1, calls: [[`cusolverDn${letter}potrfBatched`, [0, n, 'A', n, 'info', count]], [`cusolverDn${letter}potrsBatched`, [0, n, 1, 'A', n, 'B', n, 'info', count]]] },
        getrf: { nrhs: 0, calls: [[`cublas${letter}getrfBatched`, [n, 'A', n, 'piv', 'info', count]]] },
        gesv: { nrhs: 1, calls: [[`cublas${letter}getrfBatched`, [n, 'A', n, 'piv', 'info', count]], [`cublas${letter}getrsBatched`, [0, n, 1, 'A', n, 'piv', 'B', n, 'out', count]]] },
        trsm: { nrhs: n, calls: [[`cublas${letter}trsmBatched`, [0, 0, 0, 0, n, n, 'alpha', 'A', n, 'B', n, count]]] },
        geqrf: { nrhs: 0, calls: [[`cublas${letter}geqrfBatched`, [n, n, 'A', n, 'tau', 'out', count]]] },
      };
      for (const [op, e] of Object.entries(expect)) {
        const dev = new FakeDevice(0, []);
        const handles = recordingHandles();
        const arrays = { ...fakeArrays(dev, real, n, count, e.nrhs), ...(op === 'geqrf' ? { tau: dev.alloc(real, 2 * n * count) } : {}) };
        const run = runOf(prepareComplexVendor(dev, handles, op as 'potrf', dtype, n, count, arrays));
        assert.ok(run, op);
        // The pointer arrays: one address a matrix of pairs apart (2 rows cols parts of `bytes`).
        const stride = (cols: number): bigint[] => Array.from({ length: count }, (_, i) => BigInt(i * 2 * n * cols * bytes));
        const lists = addresses(dev, count).map((l) => l.join());
        assert.ok(lists.includes(stride(n).join()), `${op}: A's pointers`);
        if (e.nrhs > 0) assert.ok(lists.includes(stride(e.nrhs).join()), `${op}: B's pointers`);
        if (op === 'geqrf') assert.ok(lists.includes(stride(1).join()), "geqrf: tau's pointers");
        run.run();
        assert.deepEqual(handles.calls.map((c) => c.name), e.calls.map(([name]) => name), op);
        handles.calls.forEach((c, i) => {
          checkCall(c);
          const want = e.calls[i]![1];
          want.forEach((w, j) => {
            if (typeof w === 'number') assert.equal(c.args[j], w, `${c.name} argument ${j + 2}`);
            if (w === 'alpha') assert.deepEqual([...(c.args[j] as Float64Array)], [1, 0], `${c.name}: alpha`);
          });
        });
        run.dispose();
      }
      assert.equal(prepareComplexVendor(new FakeDevice(0, []), recordingHandles(), 'gemm', dtype, n, count, fakeArrays(new FakeDevice(0, []), real, n, count, 0)), undefined,
        'gemm: no cuBLAS handle on a device that is not a CUDA device');
      assert.equal(prepareComplexVendor(new FakeDevice(0, []), recordingHandles(), 'syev', dtype, n, count, {}), undefined);
    });
  }
});

describe('the checks before a complex native call', () => {
  const dev = new FakeDevice(0, []);
  const n = 4, count = 2;
  const pointers = (source: DeviceArray, stride: number, offset = 0): BatchPointers => new BatchPointers(dev.alloc('int64', count), source, count, stride, offset);
  const a = dev.alloc('float64', 2 * n * n * count);
  const info = dev.alloc('int32', count), piv = dev.alloc('int32', n * count);

  it('the parts dtype, pairs, alignment, bounds, int32 sizes, potrs with one right-hand side; nothing reaches the library', () => {
    const h = recordingHandles();
    const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;
    assert.throws(() => h.blas().complexGetrfBatched('complex64', n, pointers(a, 2 * n * n), n, piv, info, count), code('DTYPE'));
    assert.throws(() => h.blas().complexGetrfBatched('complex128', n, pointers(a, 2 * n * n - 1), n, piv, info, count), code('LAYOUT'));
    assert.throws(() => h.blas().complexGetrfBatched('complex128', n, pointers(a, 2 * n * n, 1), n, piv, info, count), code('LAYOUT'));
    assert.throws(() => h.blas().complexGetrfBatched('complex128', n + 1, pointers(a, 2 * n * n), n + 1, piv, info, count), code('BOUNDS'));
    assert.throws(() => h.blas().complexGetrfBatched('complex128', n, pointers(a, 2 * n * n), n - 1, piv, info, count), code('LAYOUT'));
    assert.throws(() => h.blas().complexGetrfBatched('complex128', n, pointers(a, 2 * n * n), n, dev.alloc('int32', n), info, count), code('BOUNDS'));
    assert.throws(() => h.blas().complexGetrfBatched('complex128', 2 ** 31, pointers(a, 2 * n * n), 2 ** 31, piv, info, count), code('INVALID_ARGUMENT'));
    assert.throws(() => h.blas().complexTrsmBatched('complex128', 'left', 'lower', 'N', 'nonunit', n, n + 1, [1, 0], pointers(a, 2 * n * n), n, pointers(a, 2 * n * n), n, count), code('BOUNDS'));
    assert.throws(() => h.solver().complexPotrsBatched('complex128', 'lower', n, 2, pointers(a, 2 * n * n), n, pointers(a, 2 * n * n), n, info, count), code('UNSUPPORTED'));
    assert.throws(() => h.solver().complexPotrfBatched('complex128', 'lower', n, pointers(a, 2 * n * n), n, dev.alloc('float64', count), count), code('DTYPE'));
    // An array whose own address is 8 bytes off a cuDoubleComplex (a view at an odd element).
    const shifted: DeviceArray = { kind: 'device', dtype: 'float64', length: a.length, device: 0, ptr: 8n, byteLength: a.byteLength, disposed: false, dispose() {} };
    assert.throws(() => h.blas().complexGetrfBatched('complex128', n, pointers(shifted, 2 * n * n), n, piv, info, count), code('LAYOUT'));
    const shifted32: DeviceArray = { ...shifted, dtype: 'float32', ptr: 4n };
    assert.throws(() => h.solver().complexPotrfBatched('complex64', 'lower', n, pointers(shifted32, 2 * n * n), n, info, count), code('LAYOUT'));
    h.solver().complexPotrfBatched('complex64', 'lower', n, pointers({ ...shifted32, ptr: 8n }, 2 * n * n), n, info, count);
    assert.equal(h.calls.length, 1, 'a cuFloatComplex is 8-byte aligned');
    h.calls.length = 0;
    assert.equal(h.calls.length, 0);
    h.blas().complexGetrfBatched('complex128', n, pointers(a, 2 * n * n), n, piv, info, count);
    assert.equal(h.calls.length, 1);
  });
  it('a routine the library lacks: NOT_SUPPORTED, a VendorError (written in the row), no call', () => {
    const h = recordingHandles(() => {}, ['cublasZtrsmBatched', 'cusolverDnZpotrfBatched']);
    assert.throws(() => h.blas().complexTrsmBatched('complex128', 'left', 'lower', 'N', 'nonunit', n, n, [1, 0], pointers(a, 2 * n * n), n, pointers(a, 2 * n * n), n, count),
      (e: unknown) => e instanceof VendorError && /CUBLAS_STATUS_NOT_SUPPORTED .* cublasZtrsmBatched \(not in this cuBLAS\)/.test(e.message));
    assert.throws(() => h.solver().complexPotrfBatched('complex128', 'lower', n, pointers(a, 2 * n * n), n, info, count),
      (e: unknown) => e instanceof VendorError && /cusolverDnZpotrfBatched \(not in this cuSOLVER\)/.test(e.message));
    assert.equal(h.calls.length, 0);
    h.blas().complexTrsmBatched('complex64', 'left', 'lower', 'N', 'nonunit', n, n, [1, 0], pointers(dev.alloc('float32', 2 * n * n * count), 2 * n * n), n, pointers(dev.alloc('float32', 2 * n * n * count), 2 * n * n), n, count);
    assert.equal(h.calls.length, 1);
  });
});

describe("the check of the vendor's LU in the getrf and gesv rows", () => {
  const n = 7, count = 5;
  const ctx = open({ backend: 'cpu' });
  for (const op of ['getrf', 'gesv'] as const) {
    it(`${op}: no note where the vendor's factors are right; a note naming the residual where they are wrong`, () => {
      for (const wrong of [false, true]) {
        const dev = new FakeDevice(0, []);
        const pristine = randomHpd('float64', n, count, new Random(11));
        const lu = pristine.slice();
        const { ipiv } = ctx.getrf({ a: strided(lu, { rows: n, count, dtype: 'complex128' }) });
        // The arrays as the own timed runs leave them: A holds the own factors, ipiv the own pivots.
        const a0 = dev.upload(pristine), a = dev.upload(lu), own = dev.upload(ipiv as Int32Array);
        const b: Record<string, DeviceArray> = op === 'gesv' ? { b: dev.upload(randomMatrices('float64', 2 * n, 1, count, new Random(1))) } : {};
        // The "vendor": the same factors (1-based pivots), one entry off where `wrong`.
        const vendorFactors = lu.slice();
        if (wrong) vendorFactors[2 * (3 * n * n + 6 + 2 * n)] += 0.5;
        const handles = recordingHandles((c) => {
          if (!c.name.endsWith('getrfBatched')) return;
          const piv = [...dev.live].find((x) => x.dtype === 'int32' && x.length === n * count && x !== own)!;
          (piv.host as Int32Array).set((ipiv as Int32Array).map((p) => p + 1));
          (a.host as Float64Array).set(vendorFactors);
        });
        const run = runOf(prepareComplexVendor(dev, handles, op, 'complex128', n, count, { a, a0, ipiv: own, ...b }));
        (a.host as Float64Array).set(pristine);
        run!.run();
        const note = run!.check!();
        if (!wrong) assert.equal(note, undefined);
        else assert.match(note ?? '', /^vendor LU wrong: \|\|PA-LU\|\|\/\(n eps \|\|A\|\|\) [0-9.e+]+ \(ours [0-9.e-]+\) on 5 of 5 matrices$/);
        run!.dispose();
      }
    });
  }
});

describe('complex rows of runBench on a CUDA context of a fake device, the vendor column beside them', () => {
  it("trsm: the route the own call took (the CPU reference where forced) and the note; getrf: the vendor's wrong LU noted", async () => {
    const { recordingContext } = await import('../helpers/fake-gpus.js');
    const { runBench } = await import('../../src/bench/run.js');
    const { ctx, dev, backend } = recordingContext();
    const n = 4, batch = 3;
    let handles = recordingHandles();
    const vendor = { name: 'stub', prepare: (op: 'trsm', dtype: 'complex64', size: number, count: number, arrays: Record<string, DeviceArray>) => prepareComplexVendor(dev, handles, op, dtype, size, count, arrays) };
    // Order 33 runs on the GPU (the recursion over the order-32 kernel); forced onto the CPU reference, the row says so.
    const [own] = runBench(ctx, { op: 'trsm', dtype: 'complex64', sizes: [33], batch, repeats: 1 });
    assert.equal(own!.route, 'trsm');
    assert.equal(own!.note, undefined);
    backend.force = { trsm: 'cpu' };
    const [trsm] = runBench(ctx, { op: 'trsm', dtype: 'complex64', sizes: [33], batch, repeats: 1, vendor: vendor as never });
    backend.force = {};
    assert.equal(trsm!.route, 'cpu (fallback)');
    assert.equal(trsm!.note, 'ours ran on the CPU reference (copies of device data)');
    assert.equal(trsm!.vendor, 'stub');
    assert.ok(trsm!.vendorMs! > 0 && trsm!.speedup! > 0);
    assert.ok(handles.calls.length >= 4 && handles.calls.every((c) => c.name === 'cublasCtrsmBatched'), 'warm-up and the timed repeat');
    handles.calls.forEach(checkCall);
    // getrf: the own kernels only record here (A keeps its data: the own residual is large too); the
    // vendor's "factors" are the pristine matrices with pivots 1 ... n, whose residual is not zero.
    handles = recordingHandles((c) => {
      if (c.name !== 'cublasCgetrfBatched') return;
      const piv = [...dev.live].filter((x) => x.dtype === 'int32' && x.length === n * batch).at(-1)!;
      (piv.host as Int32Array).set(Array.from({ length: n * batch }, (_, i) => (i % n) + 1));
    });
    const [getrf] = runBench(ctx, { op: 'getrf', dtype: 'complex64', sizes: [n], batch, repeats: 1, vendor: vendor as never });
    assert.equal(getrf!.route, 'getrf');
    assert.match(getrf!.note ?? '', /^vendor LU wrong: .* on 3 of 3 matrices$/);
    assert.ok(getrf!.vendorMs! > 0);
    assert.equal(dev.leaked, 0, 'the vendor run and the workload free what they made');
  });
});

/** heev's arrays (A Hermitian, its pristine copy, W real) or gesvd's (A, its copy, S real, U and VT pairs) on a fake device. */
function jacobiArrays(dev: FakeDevice, op: 'heev' | 'gesvd', real: 'float64' | 'float32', n: number, count: number, seed = 5): Record<string, DeviceArray> {
  const rng = new Random(seed);
  const a0 = dev.upload(op === 'heev' ? randomHermitian(real, n, count, rng) : randomComplexGeneral(real, n, count, rng));
  const a = dev.upload(dev.download(a0));
  if (op === 'heev') return { a, a0, w: dev.alloc(real, n * count) };
  return { a, a0, s: dev.alloc(real, n * count), u: dev.alloc(real, 2 * n * n * count), vt: dev.alloc(real, 2 * n * n * count) };
}

describe('the complex Jacobi vendor runs of the bench (heev, gesvd): every native call as its prototype says', () => {
  const n = 5, count = 3, lwork = 7;
  for (const [dtype, real, letter] of [['complex128', 'float64', 'Z'], ['complex64', 'float32', 'C']] as const) {
    it(`${dtype}: heevjBatched (vectors, lower) and gesvdjBatched (vectors), sized once; a workspace of 2 lwork floats; parameters destroyed`, () => {
      for (const op of ['heev', 'gesvd'] as const) {
        const dev = new FakeDevice(0, []);
        // The library's lwork: 7 complex elements.
        const handles = recordingHandles((c) => { if (c.name.endsWith('_bufferSize')) (c.args.find(Array.isArray) as number[])[0] = lwork; }, [], dev);
        const arrays = jacobiArrays(dev, op, real, n, count);
        const run = runOf(prepareComplexVendor(dev, handles, op, dtype, n, count, arrays), op === 'heev' ? `${letter}heevjBatched` : undefined);
        assert.ok(run && run.check, op);
        const routine = `cusolverDn${letter}${op === 'heev' ? 'heevj' : 'gesvdj'}Batched`;
        assert.deepEqual(handles.calls.map((c) => c.name), [`${routine}_bufferSize`], `${op}: sized when prepared, not in the timed call`);
        assert.equal(handles.made.length, 1);
        const work = [...dev.live].filter((x) => x.dtype === real && x.length === 2 * lwork);
        assert.equal(work.length, 1, `${op}: the workspace, 2 lwork floats of ${real}`);
        run.run();
        run.run();
        assert.deepEqual(handles.calls.map((c) => c.name), [`${routine}_bufferSize`, routine, routine]);
        handles.calls.forEach(checkCall);
        const [size, call] = [handles.calls[0]!.args, handles.calls[1]!.args];
        const params = handles.made[0];
        // jobz 1 (CUSOLVER_EIG_MODE_VECTOR); heev: uplo 0 (lower); the orders and leading dimensions n; the batch.
        const numbers = (args: unknown[]): unknown[] => args.map((v) => (typeof v === 'number' ? v : v === params ? 'params' : Array.isArray(v) ? 'lwork' : typeof v));
        if (op === 'heev') {
          assert.deepEqual(numbers(size), [1, 0, n, 'bigint', n, 'bigint', 'lwork', 'params', count]);
          assert.deepEqual(numbers(call), [1, 0, n, 'bigint', n, 'bigint', 'bigint', lwork, 'bigint', 'params', count]);
        } else {
          assert.deepEqual(numbers(size), [1, n, n, 'bigint', n, 'bigint', 'bigint', n, 'bigint', n, 'lwork', 'params', count]);
          assert.deepEqual(numbers(call), [1, n, n, 'bigint', n, 'bigint', 'bigint', n, 'bigint', n, 'bigint', lwork, 'bigint', 'params', count]);
        }
        run.dispose();
        assert.deepEqual(handles.destroyed, handles.made, `${op}: the parameters destroyed`);
        assert.equal(work[0]!.disposed, true);
        assert.equal([...dev.live].filter((x) => x.dtype === 'int32').length, 0, `${op}: info freed`);
      }
    });
  }

  it('gesvd above 32: NOT_RUN, naming the routine and why (written in the row), before any handle or parameter is made', () => {
    for (const [op, routine] of [['gesvd', 'cusolverDnZgesvdjBatched']] as const) {
      const dev = new FakeDevice(0, []);
      let solvers = 0;
      const h = recordingHandles(() => {}, [], dev);
      const handles = { blas: h.blas, solver: () => { solvers++; return h.solver(); } };
      const arrays = jacobiArrays(dev, op, 'float64', 33, 2);
      const before = dev.live.size;
      assert.throws(() => prepareComplexVendor(dev, handles, op, 'complex128', 33, 2, arrays),
        (e: unknown) => e instanceof VendorError && e.message === `NOT_RUN (0) from ${routine}: n <= 32 only, no vendor row above`);
      assert.equal(solvers, 0);
      assert.equal(h.made.length + h.calls.length, 0);
      assert.equal(dev.live.size, before, 'nothing left allocated');
    }
  });

  it("the values check: no note where the vendor's values are right (in its own order); a note naming the difference where one is wrong", () => {
    const n = 6, count = 4;
    for (const [op, dtype, real] of [['heev', 'complex128', 'float64'], ['gesvd', 'complex64', 'float32'], ['heev', 'complex64', 'float32'], ['gesvd', 'complex128', 'float64']] as const) {
      for (const wrong of [false, true]) {
        const dev = new FakeDevice(0, []);
        const arrays = jacobiArrays(dev, op, real, n, count, 13);
        const pristine = dev.download(arrays.a0!) as Float64Array | Float32Array;
        const values = Array.from({ length: count }, (_, m) => {
          const matrix = pristine.subarray(2 * n * n * m, 2 * n * n * (m + 1));
          return op === 'heev' ? hermitianEigenvalues(matrix, n) : complexSingularValues(matrix, n);
        });
        const out = op === 'heev' ? arrays.w! : arrays.s!;
        // The own run left the right values (in the reference's order).
        (dev.own(out).host as Float64Array).set(values.flatMap((v) => [...v]));
        const handles = recordingHandles((c) => {
          if (c.name.endsWith('_bufferSize')) return;
          // The "vendor": the same values in the opposite order, one of matrix 2 off by 1e-2 where `wrong`.
          const got = values.flatMap((v) => [...v].reverse());
          if (wrong) got[2 * n + 1] += 1e-2;
          (dev.own(out).host as Float64Array).set(got);
        }, [], dev);
        const run = runOf(prepareComplexVendor(dev, handles, op, dtype, n, count, arrays), op === 'heev' ? `${dtype === 'complex128' ? 'Z' : 'C'}heevjBatched` : undefined)!;
        run.run();
        const note = run.check!();
        const what = op === 'heev' ? 'eigenvalues' : 'singular values';
        if (!wrong) assert.equal(note, undefined, `${op} ${dtype}`);
        else assert.match(note ?? '', new RegExp(`^vendor ${what} wrong: max \\|x - x_ref\\|/\\(n eps \\|\\|A\\|\\|_F\\) [0-9.e+]+ \\(ours [0-9.e+-]+\\) on 4 of 4 matrices$`), `${op} ${dtype}`);
        run.dispose();
      }
    }
  });
});

describe('the checks before a complex Jacobi native call', () => {
  const n = 4, count = 2;
  const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

  it('heevj: the parts dtype, floats counted as pairs, W real and long enough, int32 info, n an int32 up to 32, an aligned address; nothing reaches the library', () => {
    const dev = new FakeDevice(0, []);
    const h = recordingHandles(() => {}, [], dev);
    const s = h.solver();
    const a = dev.alloc('float64', 2 * n * n * count), w = dev.alloc('float64', n * count), info = dev.alloc('int32', count);
    assert.throws(() => s.complexHeevjBatched('complex64', n, a, dev.alloc('float32', n * count), info, count), code('DTYPE'));
    assert.throws(() => s.complexHeevjBatched('complex128', n, dev.alloc('float64', n * n * count), w, info, count), code('BOUNDS'), 'n^2 count floats are half the pairs');
    assert.throws(() => s.complexHeevjBatched('complex128', n, dev.alloc('float64', 2 * n * n * count - 1), w, info, count), code('BOUNDS'));
    assert.throws(() => s.complexHeevjBatched('complex128', n, a, dev.alloc('float32', n * count), info, count), code('DTYPE'), 'W real of the parts dtype');
    assert.throws(() => s.complexHeevjBatched('complex128', n, a, dev.alloc('float64', n * count - 1), info, count), code('BOUNDS'));
    assert.throws(() => s.complexHeevjBatched('complex128', n, a, w, dev.alloc('int32', count - 1), count), code('BOUNDS'));
    assert.throws(() => s.complexHeevjBatched('complex128', n, a, w, dev.alloc('float64', count), count), code('DTYPE'));
    assert.throws(() => s.complexHeevjBatched('complex128', 33, dev.alloc('float64', 2 * 33 * 33), dev.alloc('float64', 33), info, 1), code('UNSUPPORTED'));
    assert.throws(() => s.complexHeevjBatched('complex128', 2.5, a, w, info, count), code('INVALID_ARGUMENT'));
    assert.throws(() => s.complexHeevjBatched('complex128', n, a, w, info, -1), code('INVALID_ARGUMENT'));
    const shifted: DeviceArray = { kind: 'device', dtype: 'float64', length: a.length, device: 0, ptr: 8n, byteLength: a.byteLength, disposed: false, dispose() {} };
    assert.throws(() => s.complexHeevjBatched('complex128', n, shifted, w, info, count), code('LAYOUT'));
    assert.equal(h.calls.length + h.made.length, 0);
    s.complexHeevjBatched('complex128', n, a, w, info, count).dispose();
    assert.equal(h.calls.length, 1, 'right arguments: sized');
    assert.deepEqual(h.destroyed, h.made);
  });

  it('gesvdj: A, U and V pairs (floats counted as pairs), S real with min(m, n) a matrix, m and n up to 32; nothing reaches the library', () => {
    const dev = new FakeDevice(0, []);
    const h = recordingHandles(() => {}, [], dev);
    const s = h.solver();
    const m = 3;
    const pairs = (rows: number, cols: number): DeviceArray => dev.alloc('float32', 2 * rows * cols * count);
    const [a, S, U, V, info] = [pairs(m, n), dev.alloc('float32', m * count), pairs(m, m), pairs(n, n), dev.alloc('int32', count)];
    assert.throws(() => s.complexGesvdjBatched('complex128', m, n, a, S, U, V, info, count), code('DTYPE'));
    assert.throws(() => s.complexGesvdjBatched('complex64', m, n, dev.alloc('float32', m * n * count), S, U, V, info, count), code('BOUNDS'));
    assert.throws(() => s.complexGesvdjBatched('complex64', m, n, a, dev.alloc('float32', m * count - 1), U, V, info, count), code('BOUNDS'), 'S: min(m, n) a matrix');
    assert.throws(() => s.complexGesvdjBatched('complex64', m, n, a, dev.alloc('float64', m * count), U, V, info, count), code('DTYPE'));
    assert.throws(() => s.complexGesvdjBatched('complex64', m, n, a, S, dev.alloc('float32', m * m * count), V, info, count), code('BOUNDS'), 'U: m x m pairs');
    assert.throws(() => s.complexGesvdjBatched('complex64', m, n, a, S, U, dev.alloc('float32', 2 * m * n * count), info, count), code('BOUNDS'), 'V: n x n pairs');
    assert.throws(() => s.complexGesvdjBatched('complex64', m, n, a, S, U, V, dev.alloc('int32', 1), count), code('BOUNDS'));
    assert.throws(() => s.complexGesvdjBatched('complex64', 33, 2, dev.alloc('float32', 2 * 66), dev.alloc('float32', 2), dev.alloc('float32', 2 * 33 * 33), dev.alloc('float32', 8), dev.alloc('int32', 1), 1), code('UNSUPPORTED'));
    assert.throws(() => s.complexGesvdjBatched('complex64', 2, 33, dev.alloc('float32', 2 * 66), dev.alloc('float32', 2), dev.alloc('float32', 8), dev.alloc('float32', 2 * 33 * 33), dev.alloc('int32', 1), 1), code('UNSUPPORTED'));
    const shifted: DeviceArray = { kind: 'device', dtype: 'float32', length: U.length, device: 0, ptr: 4n, byteLength: U.byteLength, disposed: false, dispose() {} };
    assert.throws(() => s.complexGesvdjBatched('complex64', m, n, a, S, shifted, V, info, count), code('LAYOUT'), 'a cuFloatComplex is 8-byte aligned');
    assert.equal(h.calls.length + h.made.length, 0);
    s.complexGesvdjBatched('complex64', m, n, a, S, U, V, info, count).dispose();
    assert.equal(h.calls.length, 1);
    // No matrices: no native call at all.
    s.complexGesvdjBatched('complex64', m, n, a, S, U, V, info, 0).run();
    assert.equal(h.calls.length, 1);
  });

  it('a library without the complex Jacobi routines: NOT_SUPPORTED, a VendorError (written in the row), no parameters made', () => {
    const dev = new FakeDevice(0, []);
    const h = recordingHandles(() => {}, ['cusolverDnZheevjBatched', 'cusolverDnCgesvdjBatched_bufferSize'], dev);
    const s = h.solver();
    assert.throws(() => s.complexHeevjBatched('complex128', n, dev.alloc('float64', 2 * n * n), dev.alloc('float64', n), dev.alloc('int32', 1), 1),
      (e: unknown) => e instanceof VendorError && /CUSOLVER_STATUS_NOT_SUPPORTED .* cusolverDnZheevjBatched \(not in this cuSOLVER\)/.test(e.message));
    assert.throws(() => s.complexGesvdjBatched('complex64', n, n, dev.alloc('float32', 2 * n * n), dev.alloc('float32', n), dev.alloc('float32', 2 * n * n), dev.alloc('float32', 2 * n * n), dev.alloc('int32', 1), 1),
      (e: unknown) => e instanceof VendorError && /cusolverDnCgesvdjBatched \(not in this cuSOLVER\)/.test(e.message));
    assert.equal(h.calls.length + h.made.length, 0);
    s.complexHeevjBatched('complex64', n, dev.alloc('float32', 2 * n * n), dev.alloc('float32', n), dev.alloc('int32', 1), 1).dispose();
    assert.equal(h.calls.length, 1);
  });
});

/** A solver whose cusolverDnXsyevBatched calls are recorded: the 64-bit API's parameters made and destroyed by stand-ins. */
function xsyevSolver(dev: FakeDevice): { solver: Cusolver; calls: Call[]; destroyed: number } {
  const h = recordingHandles(() => {}, [], Object.assign(dev, { context: { alive: true } }));
  const solver = h.solver();
  const state = { destroyed: 0 };
  Object.assign((solver as unknown as { api: Record<string, unknown> }).api, {
    cusolverDnCreateParams: (out: unknown[]) => { out[0] = { kind: 'cusolverDnParams_t' }; return 0; },
    cusolverDnDestroyParams: () => { state.destroyed++; return 0; },
    cusolverDnXsyevBatched_bufferSize: () => 0,
    cusolverDnXsyevBatched: () => 0,
  });
  return { solver, calls: h.calls, get destroyed() { return state.destroyed; } };
}

describe('complex heev above 32: cusolverDnXsyevBatched on the complex type', () => {
  it('A of the complex data type (CUDA_C_64F 5, CUDA_C_32F 4) also the compute type, W of the real one (CUDA_R_64F 1, CUDA_R_32F 0); lower; vectors', () => {
    const n = 33, count = 2;
    for (const [dtype, real, typeA, typeW] of [['complex128', 'float64', 5, 1], ['complex64', 'float32', 4, 0]] as const) {
      const dev = new FakeDevice(0, []);
      const x = xsyevSolver(dev);
      const a = dev.alloc(real, 2 * n * n * count), w = dev.alloc(real, n * count), info = dev.alloc('int32', count);
      const run = x.solver.complexSyevBatched(dtype, n, a, w, info, count);
      run.run();
      assert.deepEqual(x.calls.map((c) => c.name), ['cusolverDnXsyevBatched_bufferSize', 'cusolverDnXsyevBatched']);
      for (const c of x.calls) {
        // (params, jobz, uplo, n, typeA, A, lda, typeW, W, computeType, ...)
        assert.deepEqual([c.args[1], c.args[2], c.args[3], c.args[4], c.args[6], c.args[7], c.args[9]], [1, 0, n, typeA, n, typeW, typeA], `${dtype} ${c.name}`);
      }
      assert.equal(x.calls[1]!.args.at(-1), count);
      run.dispose();
      assert.equal(x.destroyed, 1, 'parameters destroyed');
    }
  });

  it('the checks before native code: pairs counted, W real of the parts dtype, info one per matrix', () => {
    const n = 33, count = 2;
    const dev = new FakeDevice(0, []);
    const x = xsyevSolver(dev);
    const info = dev.alloc('int32', count);
    const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;
    assert.throws(() => x.solver.complexSyevBatched('complex128', n, dev.alloc('float64', n * n * count), dev.alloc('float64', n * count), info, count), code('BOUNDS'));
    assert.throws(() => x.solver.complexSyevBatched('complex128', n, dev.alloc('float64', 2 * n * n * count), dev.alloc('float32', n * count), info, count), code('DTYPE'));
    assert.throws(() => x.solver.complexSyevBatched('complex64', n, dev.alloc('float64', 2 * n * n * count), dev.alloc('float32', n * count), info, count), code('DTYPE'));
    assert.throws(() => x.solver.complexSyevBatched('complex128', n, dev.alloc('float64', 2 * n * n * count), dev.alloc('float64', n * count), dev.alloc('int32', 1), count));
    assert.equal(x.calls.length, 0);
  });

  it("the bench's heev row above 32 times XsyevBatched (and checks its values); where the library lacks it the row says so", async () => {
    const { recordingContext } = await import('../helpers/fake-gpus.js');
    const { runBench } = await import('../../src/bench/run.js');
    for (const lacks of [false, true]) {
      const { ctx, dev } = recordingContext();
      const x = xsyevSolver(dev as unknown as FakeDevice);
      if (lacks) delete (x.solver as unknown as { api: Record<string, unknown> }).api['cusolverDnXsyevBatched'];
      const handles = { blas: (): Cublas => { throw new Error('no cuBLAS here'); }, solver: () => x.solver };
      const vendor = { name: 'stub', prepare: (op: 'heev', dtype: 'complex64', size: number, count: number, arrays: Record<string, DeviceArray>) => prepareComplexVendor(dev, handles, op, dtype, size, count, arrays) };
      const [row] = runBench(ctx, { op: 'heev', dtype: 'complex64', sizes: [33], batch: 2, repeats: 1, vendor: vendor as never });
      assert.ok(row!.ms > 0 && row!.gflops > 0);
      if (lacks) {
        assert.equal(row!.vendor, 'stub: XsyevBatched failed (CUSOLVER_STATUS_NOT_SUPPORTED (9) from cusolverDnXsyevBatched (not in this cuSOLVER))');
        assert.equal(row!.vendorMs, undefined);
        assert.equal(x.calls.length, 0);
      } else {
        assert.ok(x.calls.some((c) => c.name === 'cusolverDnXsyevBatched'), 'the vendor ran');
        assert.ok(row!.vendorMs !== undefined);
        assert.equal(row!.vendor, 'stub XsyevBatched', 'the routine named');
      }
    }
  });
});

describe("the bench's real eigenvalue routines with and without vectors (syev, syev-values)", () => {
  it('syevjBatched, syevd a matrix per call and XsyevBatched pass jobz 1 with vectors, 0 for values only, to the sizing call and the call', () => {
    const n = 5, count = 3;
    for (const vectors of [true, false]) {
      const dev = new FakeDevice(0, []);
      const x = xsyevSolver(dev);
      const a = dev.alloc('float64', n * n * count), w = dev.alloc('float64', n * count), info = dev.alloc('int32', count);
      const runs = [x.solver.syevjBatched('float64', n, a, w, info, count, vectors), x.solver.syevdLoop('float64', n, a, w, info, count, vectors),
        x.solver.syevBatched('float64', n, a, w, info, count, vectors)];
      for (const r of runs) { r.run(); r.dispose(); }
      const jobz = vectors ? 1 : 0;
      // (the calls as made: each routine sized when prepared, then run; syevd once a matrix)
      assert.deepEqual(x.calls.map((c) => c.name).sort(), ['cusolverDnDsyevjBatched_bufferSize', 'cusolverDnDsyevd_bufferSize', 'cusolverDnXsyevBatched_bufferSize',
        'cusolverDnDsyevjBatched', 'cusolverDnDsyevd', 'cusolverDnDsyevd', 'cusolverDnDsyevd', 'cusolverDnXsyevBatched'].sort());
      for (const c of x.calls) assert.equal(c.name.startsWith('cusolverDnX') ? c.args[1] : c.args[0], jobz, `${c.name}: jobz`);
    }
  });
});
