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
 * - the LU check of getrf / gesv on a fake device: no note for right factors, a note for wrong ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import koffi from 'koffi';
import '../../src/cuda/runtime/ffi-cuda.js';
import { Cublas, COMPLEX_SOLVE_PROTOTYPES } from '../../src/cuda/baselines/cublas.js';
import { Cusolver, COMPLEX_CHOLESKY_PROTOTYPES } from '../../src/cuda/baselines/cusolver.js';
import { BatchPointers } from '../../src/cuda/baselines/pointers.js';
import { VendorError } from '../../src/cuda/runtime/errors.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { strided } from '../../src/core/batch.js';
import { open } from '../../src/api/open.js';
import { prepareComplexVendor } from '../../src/bench/complex-vendor.js';
import { Random, randomComplexGeneral, randomHpd, randomMatrices } from '../../src/bench/data.js';
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
// Enums are C ints; device addresses (the pointer arrays, pivots, device info) CUdeviceptr; the
// host alpha a pair of the part type; the host info an out-parameter.
const EXPECTED: Readonly<Record<string, readonly string[]>> = Object.fromEntries((['Z', 'C'] as const).flatMap((t) => {
  const part = t === 'Z' ? 'double' : 'float';
  return [
    [`cublas${t}getrfBatched`, ['cublasHandle_t', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'CUdeviceptr', 'int']],
    [`cublas${t}getrsBatched`, ['cublasHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'CUdeviceptr', 'int', '_Out_ int *', 'int']],
    [`cublas${t}trsmBatched`, ['cublasHandle_t', 'int', 'int', 'int', 'int', 'int', 'int', `const ${part} *`, 'CUdeviceptr', 'int', 'CUdeviceptr', 'int', 'int']],
    [`cusolverDn${t}potrfBatched`, ['cusolverDnHandle_t', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int']],
    [`cusolverDn${t}potrsBatched`, ['cusolverDnHandle_t', 'int', 'int', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int', 'CUdeviceptr', 'int']],
  ] as const;
}));

const PROTOTYPES = new Map([...COMPLEX_SOLVE_PROTOTYPES, ...COMPLEX_CHOLESKY_PROTOTYPES].map((p) => [parameterTypes(p).name, p]));

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
    else assert.fail(`${what}: no rule`);
  });
}

/** Vendor handles whose native calls are recorded (and `onCall` run) instead of made; `missing` routines absent. */
function recordingHandles(onCall: (c: Call) => void = () => {}, missing: readonly string[] = []): { blas(): Cublas; solver(): Cusolver; calls: Call[] } {
  const calls: Call[] = [];
  const api = Object.fromEntries([...PROTOTYPES.keys()].filter((k) => !missing.includes(k)).map((k) => [k, () => 0]));
  const call = (name: string, ...args: unknown[]): void => { const c = { name, args }; calls.push(c); onCall(c); };
  const blas = Object.assign(Object.create(Cublas.prototype) as Cublas, { api, call });
  const solver = Object.assign(Object.create(Cusolver.prototype) as Cusolver, { api, call });
  return { blas: () => blas, solver: () => solver, calls };
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
    it(`${dtype}: potrf, posv, getrf, gesv, trsm`, () => {
      const expect: Record<string, { nrhs: number; calls: [string, unknown[]][] }> = {
        potrf: { nrhs: 0, calls: [[`cusolverDn${letter}potrfBatched`, [0, n, 'A', n, 'info', count]]] },
        posv: { nrhs: 1, calls: [[`cusolverDn${letter}potrfBatched`, [0, n, 'A', n, 'info', count]], [`cusolverDn${letter}potrsBatched`, [0, n, 1, 'A', n, 'B', n, 'info', count]]] },
        getrf: { nrhs: 0, calls: [[`cublas${letter}getrfBatched`, [n, 'A', n, 'piv', 'info', count]]] },
        gesv: { nrhs: 1, calls: [[`cublas${letter}getrfBatched`, [n, 'A', n, 'piv', 'info', count]], [`cublas${letter}getrsBatched`, [0, n, 1, 'A', n, 'piv', 'B', n, 'out', count]]] },
        trsm: { nrhs: n, calls: [[`cublas${letter}trsmBatched`, [0, 0, 0, 0, n, n, 'alpha', 'A', n, 'B', n, count]]] },
      };
      for (const [op, e] of Object.entries(expect)) {
        const dev = new FakeDevice(0, []);
        const handles = recordingHandles();
        const arrays = fakeArrays(dev, real, n, count, e.nrhs);
        const run = prepareComplexVendor(dev, handles, op as 'potrf', dtype, n, count, arrays);
        assert.ok(run, op);
        // The pointer arrays: one address a matrix of pairs apart (2 rows cols parts of `bytes`).
        const stride = (cols: number): bigint[] => Array.from({ length: count }, (_, i) => BigInt(i * 2 * n * cols * bytes));
        const lists = addresses(dev, count).map((l) => l.join());
        assert.ok(lists.includes(stride(n).join()), `${op}: A's pointers`);
        if (e.nrhs > 0) assert.ok(lists.includes(stride(e.nrhs).join()), `${op}: B's pointers`);
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
        const run = prepareComplexVendor(dev, handles, op, 'complex128', n, count, { a, a0, ipiv: own, ...b });
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
