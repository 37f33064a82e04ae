/**
 * The CUDA runtime on a real GPU (skipped where none is usable): device info, memory round
 * trips, compile + launch + events, error paths (CudaError, NvrtcError), and the vendor
 * bindings on tiny cases with known answers.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { MyriadError } from '../../src/core/errors.js';
import { arg, CudaError, NvrtcError, probeCuda, type KernelSource } from '../../src/cuda/runtime/index.js';
import { Cublas, Cusolver, batchPointers } from '../../src/cuda/baselines/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { cudaRuntime } from '../../src/cuda/runtime/runtime.js';
import { quickFirst, TieredKernel } from '../../src/cuda/runtime/tiered.js';
import { warmAhead } from '../../src/api/warm-ahead.js';
import { open } from '../../src/api/open.js';
import { strided } from '../../src/core/batch.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { Random, randomSpd } from '../../src/bench/data.js';
import { cpuBackend as reference } from '../../src/cpu/backend.js';

// Read when the first kernel compiles: a fresh disk cache, so this file exercises NVRTC.
process.env['MYRIAD_CACHE_DIR'] ??= mkdtempSync(join(tmpdir(), 'myriad-gpu-cache-'));
const skip = gpuSkipReason();

type Real = 'float64' | 'float32';
function fromFn(dtype: Real, n: number, f: (i: number) => number): Float64Array | Float32Array {
  const a = dtype === 'float64' ? new Float64Array(n) : new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = f(i);
  return a;
}

const AXPY = (real: string): KernelSource => ({
  name: `axpy_${real}.cu`,
  entry: 'axpy',
  source: `extern "C" __global__ void axpy(int n, ${real} a, const ${real}* __restrict__ x, ${real}* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
`,
});

test('probe and device info are sane', { skip }, () => {
  const p = probeCuda();
  assert.ok(p.usable);
  const info = gpu().info;
  console.log(`# ${info.name} ${info.arch} SMs ${info.smCount} driver CUDA ${p.driverVersion} NVRTC ${p.nvrtcVersion} (${p.libcuda}, ${p.libnvrtc})`);
  console.log(`# ${JSON.stringify(info)}`);
  assert.equal(info.warpSize, 32);
  assert.ok(info.smCount > 0 && info.maxThreadsPerBlock === 1024);
  assert.ok(info.sharedPerBlockOptin >= info.sharedPerBlock && info.sharedPerBlock === 48 * 1024);
  assert.ok(info.totalMemoryBytes > 1e9 && info.l2Bytes > 0);
  if (/H100|H200/.test(info.name)) {
    assert.equal(info.arch, 'sm_90');
    assert.ok([132, 114].includes(info.smCount), `SM count ${info.smCount}`);
    assert.equal(info.sharedPerBlockOptin, 227 * 1024);
  }
});

test('upload/download round trips f64, f32, i32, i64; copy and fill', { skip }, () => {
  const dev = gpu();
  const n = 1000;
  const f64 = Float64Array.from({ length: n }, (_, i) => Math.sin(i) * 1e300);
  const f32 = Float32Array.from({ length: n }, (_, i) => i / 7);
  const i32 = Int32Array.from({ length: n }, (_, i) => i * 2654435761);
  const i64 = BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 0x123456789abn - 5n);
  for (const host of [f64, f32, i32, i64]) {
    const d = dev.upload(host);
    assert.deepEqual(dev.download(d), host);
    d.dispose();
  }
  const a = dev.upload(f64);
  const b = dev.alloc('float64', n);
  dev.fill(b, 0xff);
  dev.copy(a, 10, b, 20, 100);
  const back = dev.download(b) as Float64Array;
  assert.ok(Number.isNaN(back[0]) && Number.isNaN(back[19]) && Number.isNaN(back[120]));
  assert.deepEqual(back.subarray(20, 120), f64.subarray(10, 110));
  const prefix = new Float64Array(5);
  dev.download(a, prefix);
  assert.deepEqual(prefix, f64.subarray(0, 5));
  dev.upload(new Float64Array([1, 2]), b);
  const head = dev.download(b) as Float64Array;
  assert.deepEqual(Array.from(head.subarray(0, 3)), [1, 2, NaN]); // the rest of b is untouched
  assert.equal(head[20], f64[10]);
  a.dispose();
  b.dispose();
});

test('bounds and dispose are checked before native calls', { skip }, () => {
  const dev = gpu();
  const a = dev.alloc('float32', 10);
  const code = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof MyriadError);
      return e.code;
    }
    return 'no error';
  };
  assert.equal(code(() => dev.upload(new Float32Array(11), a)), 'BOUNDS');
  assert.equal(code(() => dev.upload(new Float64Array(2), a)), 'DTYPE');
  assert.equal(code(() => dev.download(a, new Float32Array(11))), 'BOUNDS');
  assert.equal(code(() => dev.copy(a, 5, a, 0, 6)), 'BOUNDS');
  assert.equal(code(() => dev.copy(a, 0, a, -1, 1)), 'INVALID_ARGUMENT');
  assert.equal(code(() => dev.fill(a, 256)), 'INVALID_ARGUMENT');
  const empty = dev.alloc('float64', 0);
  assert.equal(dev.download(empty).length, 0);
  empty.dispose();
  a.dispose();
  a.dispose(); // a no-op
  assert.equal(a.disposed, true);
  assert.equal(code(() => a.ptr), 'DISPOSED');
  assert.equal(code(() => dev.download(a)), 'DISPOSED');
});

test('compile, launch and time y = a*x + y (f64, f32)', { skip }, () => {
  const dev = gpu();
  const n = 1 << 20;
  for (const [real, dtype] of [['double', 'float64'], ['float', 'float32']] as const) {
    const k = dev.kernel(AXPY(real));
    assert.equal(dev.kernel(AXPY(real)), k, 'a second request is served from the device cache');
    assert.ok(k.registers > 0 && k.localBytes === 0 && k.maxThreadsPerBlock > 0);
    const x = fromFn(dtype, n, (i) => (i % 97) - 48);
    const y = fromFn(dtype, n, (i) => i % 13);
    const dx = dev.upload(x);
    const dy = dev.upload(y);
    const args = [arg.i32(n), real === 'double' ? arg.f64(2.5) : arg.f32(2.5), arg.ptr(dx), arg.ptr(dy)];
    const config = { grid: [Math.ceil(n / 256), 1, 1], block: [256, 1, 1] } as const;
    k.launch(config, args);
    const out = dev.download(dy);
    for (let i = 0; i < n; i += 4099) assert.equal(out[i], 2.5 * (x[i] as number) + (y[i] as number));
    const start = dev.event();
    const end = dev.event();
    const reps = 200;
    start.record();
    for (let r = 0; r < reps; r++) k.launch(config, args);
    end.record();
    end.synchronize();
    const ms = end.elapsedSince(start);
    assert.ok(ms > 0);
    const t0 = performance.now();
    for (let r = 0; r < reps; r++) k.launch(config, args);
    const hostUs = ((performance.now() - t0) * 1000) / reps;
    dev.synchronize();
    const gbs = (3 * n * x.BYTES_PER_ELEMENT * reps) / (ms * 1e6);
    console.log(`# axpy ${real} n=${n}: ${((ms * 1000) / reps).toFixed(1)} us/launch on GPU (${gbs.toFixed(0)} GB/s), ${hostUs.toFixed(1)} us host per launch`);
    assert.throws(() => k.launch(config, args.slice(0, 3)), (e: MyriadError) => e.code === 'INVALID_ARGUMENT');
    start.dispose();
    end.dispose();
    dx.dispose();
    dy.dispose();
  }
});

test('a kernel missing from the cache serves its first call from a quick build, later calls from the optimised one, with the same results', { skip }, (t) => {
  const dev = gpu();
  // A source no cache holds (a fresh constant), with an unrolled loop: a quick build's case (runtime/tiered.ts).
  const salt = Math.floor(Math.random() * 1e9);
  const src: KernelSource = {
    name: `tiered_${salt}.cu`,
    entry: 'poly',
    source: `extern "C" __global__ void poly(int n, const double* __restrict__ x, double* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = ${salt}.0 * 1e-12, v = x[i];
#pragma unroll
  for (int k = 0; k < 16; ++k) acc = fma(acc, v, (double)(k + 1));
  y[i] = acc;
}
`,
  };
  // Turned off by the environment: an allowed skip (scripts/gpu-suite/plan.ts); refused by this NVRTC: one the suite fails.
  if (!quickFirst()) {
    t.skip('opt-out: MYRIAD_QUICK_FIRST=0 turns quick builds off');
    return;
  }
  if (!cudaRuntime().quickBuilds) {
    t.skip('quick builds are off: this NVRTC refused --Ofast-compile');
    return;
  }
  dev.beginCall();
  const k = dev.kernel(src);
  assert.ok(k instanceof TieredKernel && k.quick, 'the first load is a quick build');
  const n = 4096;
  const x = Float64Array.from({ length: n }, (_, i) => Math.cos(i) * 0.9);
  const dx = dev.upload(x);
  const dy = dev.alloc('float64', n);
  const run = (): Float64Array => {
    dev.fill(dy, 0xff);
    k.launch({ grid: [n / 128, 1, 1], block: [128, 1, 1] }, [arg.i32(n), arg.ptr(dx), arg.ptr(dy)]);
    return dev.download(dy) as Float64Array;
  };
  const first = run();
  dev.beginCall();
  const second = run();
  assert.equal(k.quick, false, 'a launch in a later call runs the optimised build');
  for (let i = 0; i < n; i++) {
    let acc = salt * 1e-12;
    for (let j = 0; j < 16; j++) acc = acc * x[i]! + (j + 1);
    // Both builds evaluate the same fma chain: equal to each other, and to the host's within rounding.
    assert.equal(first[i], second[i], `element ${i}: quick and optimised builds differ`);
    assert.ok(Math.abs(second[i]! - acc) <= 1e-12 * Math.abs(acc) + 1e-12, `element ${i}: ${second[i]} vs ${acc}`);
  }
  dx.dispose();
  dy.dispose();
});

test('warmAhead: kernels compiled before the context opens are waited for, not compiled again nor served quick', { skip }, async () => {
  // A size no other test of this file uses, on this file's fresh cache.
  const n = 37, count = 5;
  // The cache's count of stored builds before the ahead ones (the workers' binaries count there).
  const storedBefore = cudaRuntime().cache().stats.compiles;
  const ahead = warmAhead((planning) => { planning.potrf({ a: strided(planning.alloc('float64', n * n * count) as DeviceStorage, { rows: n, count }), uplo: 'lower' }); });
  assert.ok(ahead !== undefined, 'a usable GPU: something to compile');
  const ctx = open({ backend: 'cuda' });
  try {
    const before = ctx.deviceBackend!.moduleStats!()!;
    const a = randomSpd('float64', n, count, new Random(3));
    const da = ctx.upload(a);
    // Called before the builds are awaited: the call's lookups wait for them.
    const r = ctx.potrf({ a: strided(da, { rows: n, count }), uplo: 'lower' });
    const info = r.info instanceof Int32Array ? r.info : (ctx.download(r.info as DeviceStorage) as Int32Array);
    const got = ctx.download(da) as Float64Array;
    await ahead;
    const after = ctx.deviceBackend!.moduleStats!()!;
    // (`compiles` also counts binaries stored from the workers, the ahead builds among them; the
    // time of compiles on this thread counts only the call's own, a quick build's included.)
    assert.equal(after.compileMs, before.compileMs, 'the call compiled nothing itself');
    assert.ok(after.compiles > storedBefore, 'the ahead builds reached the cache');
    const want = a.slice();
    const wantInfo = new Int32Array(count);
    reference.potrf({ a: strided(want, { rows: n, count }), uplo: 'lower', info: wantInfo });
    assert.deepEqual([...info], [...wantInfo]);
    for (let m = 0; m < count; m++) for (let j = 0; j < n; j++) for (let i = j; i < n; i++) {
      const k = m * n * n + i + j * n;
      assert.ok(Math.abs(got[k]! - want[k]!) <= 64 * n * 2.2e-16 * Math.max(1, Math.abs(want[k]!)), `matrix ${m} (${i}, ${j}): ${got[k]} vs ${want[k]}`);
    }
  } finally {
    ctx.dispose();
  }
});

test('launch overhead: packed parameter block vs per-call array (both correct)', { skip }, () => {
  const dev = gpu();
  const n = 256;
  const results: string[] = [];
  for (const mode of ['packed', 'array'] as const) {
    if (mode === 'array') process.env['MYRIAD_LAUNCH_PARAMS'] = 'array';
    // A distinct source per mode: a distinct cache key, so a distinct CudaKernel.
    const k = dev.kernel({ ...AXPY('double'), source: `${AXPY('double').source}// ${mode}\n` });
    delete process.env['MYRIAD_LAUNCH_PARAMS'];
    const x = dev.upload(fromFn('float64', n, (i) => i));
    const y = dev.upload(fromFn('float64', n, () => 1));
    const config = { grid: [1, 1, 1], block: [256, 1, 1] } as const;
    const args = [arg.i32(n), arg.f64(0.5), arg.ptr(x), arg.ptr(y)];
    const reps = 20000;
    for (let r = 0; r < 100; r++) k.launch(config, args);
    dev.synchronize();
    const t0 = performance.now();
    for (let r = 0; r < reps; r++) k.launch(config, args);
    const hostUs = ((performance.now() - t0) * 1000) / reps;
    const out = dev.download(y) as Float64Array;
    assert.equal(out[10], 1 + (reps + 100) * 0.5 * 10, mode);
    results.push(`${mode} ${hostUs.toFixed(2)} us`);
    x.dispose();
    y.dispose();
  }
  console.log(`# host time per launch (tiny kernel, ${dev.info.name}): ${results.join(', ')}`);
});

test('dynamic shared memory above 48 KiB is opted in', { skip }, () => {
  const dev = gpu();
  const k = dev.kernel({
    name: 'shared_sum.cu',
    entry: 'shared_sum',
    source: `extern "C" __global__ void shared_sum(const double* x, int n, double* out) {
  extern __shared__ double s[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = x[i];
  __syncthreads();
  if (threadIdx.x == 0) { double t = 0; for (int i = 0; i < n; ++i) t += s[i]; *out = t; }
}
`,
  });
  const n = (200 * 1024) / 8;
  const x = dev.upload(Float64Array.from({ length: n }, (_, i) => i));
  const out = dev.alloc('float64', 1);
  k.launch({ grid: [1, 1, 1], block: [256, 1, 1], sharedBytes: n * 8 }, [arg.ptr(x), arg.i32(n), arg.ptr(out)]);
  assert.equal((dev.download(out) as Float64Array)[0], (n * (n - 1)) / 2);
  assert.throws(
    () => k.launch({ grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 300 * 1024 }, [arg.ptr(x), arg.i32(n), arg.ptr(out)]),
    (e: MyriadError) => e.code === 'INVALID_ARGUMENT',
  );
  x.dispose();
  out.dispose();
});

test('errors: NvrtcError with the log, CudaError with a CUDA_ERROR_* name', { skip }, () => {
  const dev = gpu();
  const bad: KernelSource = { name: 'broken.cu', entry: 'broken', source: 'extern "C" __global__ void broken(int* p) {\n  p[0] = undeclared_thing;\n}\n' };
  assert.throws(() => dev.kernel(bad), (e: unknown) => {
    assert.ok(e instanceof NvrtcError, String(e));
    assert.equal(e.code, 'NVRTC');
    assert.equal(e.status, 'NVRTC_ERROR_COMPILATION');
    assert.equal(e.sourceName, 'broken.cu');
    assert.match(e.log, /undeclared_thing/);
    assert.ok(e.options.includes('-std=c++17') && e.options.some((o) => o.startsWith('--gpu-architecture=')));
    assert.match(e.dump(), /2 \|\s+p\[0\] = undeclared_thing;/);
    return true;
  });
  assert.throws(() => dev.kernel({ ...AXPY('double'), entry: 'no_such_kernel' }), (e: unknown) => {
    assert.ok(e instanceof CudaError, String(e));
    assert.equal(e.status, 'CUDA_ERROR_NOT_FOUND');
    assert.equal(e.call, 'cuModuleGetFunction');
    return true;
  });
});

test('a faulting kernel surfaces as CudaError CUDA_ERROR_ILLEGAL_ADDRESS (child process: the error is sticky)', { skip }, () => {
  const runtime = new URL('../../src/cuda/runtime/index.js', import.meta.url).href;
  const script = `
    import { openDevice, arg, CudaError } from ${JSON.stringify(runtime)};
    const dev = openDevice(0);
    const k = dev.kernel({ name: 'fault.cu', entry: 'fault', source: 'extern "C" __global__ void fault(double* p) { p[threadIdx.x] = 1.0; }' });
    k.launch({ grid: [1, 1, 1], block: [32, 1, 1] }, [arg.ptr(0x10n)]);
    try { dev.synchronize(); console.log('NO ERROR'); }
    catch (e) { console.log(e instanceof CudaError ? 'STATUS ' + e.status + ' CALL ' + e.call : 'OTHER ' + e); }
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.match(r.stdout, /STATUS CUDA_ERROR_ILLEGAL_ADDRESS CALL cuStreamSynchronize/, r.stdout + r.stderr);
});

test('cuBLAS gemmStridedBatched matches a triple loop (f64, f32, transposes)', { skip }, () => {
  const dev = gpu();
  const blas = new Cublas(dev);
  console.log(`# cuBLAS ${blas.version} from ${blas.path}`);
  const [m, n, k, count] = [3, 4, 2, 5];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [tA, tB] of [['N', 'N'], ['T', 'N'], ['N', 'T']] as const) {
      const lda = (tA === 'N' ? m : k) + 1;
      const ldb = (tB === 'N' ? k : n) + 2;
      const ldc = m + 1;
      const [sA, sB, sC] = [lda * (tA === 'N' ? k : m) + 3, ldb * (tB === 'N' ? n : k), ldc * n + 1];
      const A = fromFn(dtype, sA * count, (i) => ((i * 7) % 11) - 5);
      const B = fromFn(dtype, sB * count, (i) => ((i * 5) % 9) - 4);
      const C = fromFn(dtype, sC * count, (i) => (i % 3) - 1);
      const [dA, dB, dC] = [dev.upload(A), dev.upload(B), dev.upload(C)];
      blas.gemmStridedBatched(dtype, tA, tB, m, n, k, 2, dA, lda, sA, dB, ldb, sB, -1, dC, ldc, sC, count);
      const got = dev.download(dC);
      for (let b = 0; b < count; b++) {
        for (let j = 0; j < n; j++) {
          for (let i = 0; i < m; i++) {
            let s = 0;
            for (let p = 0; p < k; p++) {
              const a = A[b * sA + (tA === 'N' ? i + p * lda : p + i * lda)] as number;
              const bb = B[b * sB + (tB === 'N' ? p + j * ldb : j + p * ldb)] as number;
              s += a * bb;
            }
            const idx = b * sC + i + j * ldc;
            assert.equal(got[idx], 2 * s - (C[idx] as number), `${dtype} ${tA}${tB} batch ${b} (${i},${j})`);
          }
        }
      }
      [dA, dB, dC].forEach((d) => d.dispose());
    }
  }
  const tiny = dev.alloc('float64', 4);
  assert.throws(() => blas.gemmStridedBatched('float64', 'N', 'N', 2, 2, 2, 1, tiny, 2, 4, tiny, 2, 4, 0, tiny, 2, 4, 2), (e: MyriadError) => e.code === 'BOUNDS');
  tiny.dispose();
  blas.dispose();
});

test('cuBLAS getrf/getrs and cuSOLVER potrf/potrs solve known systems', { skip }, () => {
  const dev = gpu();
  const blas = new Cublas(dev);
  const solver = new Cusolver(dev);
  const n = 3;
  const count = 4;
  // A_b = L_b L_b^T with L_b = [[2,0,0],[1,3,0],[b,1,4]] (column-major): potrf must return L_b.
  const L = (b: number): number[] => [2, 1, b, 0, 3, 1, 0, 0, 4];
  const spd = new Float64Array(n * n * count);
  for (let b = 0; b < count; b++) {
    const l = L(b);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let p = 0; p < n; p++) s += (l[i + p * n] as number) * (l[j + p * n] as number);
        spd[b * 9 + i + j * n] = s;
      }
  }
  spd[3 * 9 + 0] = -1; // matrix 3 is not positive definite: info[3] = 1, the others stay 0
  const dA = dev.upload(spd);
  const pA = batchPointers(dev, dA, count, n * n);
  const info = dev.alloc('int32', count);
  solver.potrfBatched('float64', 'lower', n, pA, n, info, count);
  assert.deepEqual(Array.from(dev.download(info) as Int32Array), [0, 0, 0, 1]);
  const fact = dev.download(dA) as Float64Array;
  for (let b = 0; b < 3; b++) {
    const l = L(b);
    for (let j = 0; j < n; j++) for (let i = j; i < n; i++) assert.ok(Math.abs((fact[b * 9 + i + j * n] as number) - (l[i + j * n] as number)) < 1e-14);
  }
  // potrs with x = [1, -2, 3]: b = A x, from the original matrices 0..2.
  const x = [1, -2, 3];
  const rhs = new Float64Array(n * 3);
  for (let b = 0; b < 3; b++) for (let i = 0; i < n; i++) rhs[b * n + i] = x.reduce((s, xv, j) => s + (spd[b * 9 + i + j * n] as number) * xv, 0);
  const dB = dev.upload(rhs);
  const pB = batchPointers(dev, dB, 3, n);
  const sinfo = dev.alloc('int32', 1);
  solver.potrsBatched('float64', 'lower', n, 1, pA, n, pB, n, sinfo, 3);
  const sol = dev.download(dB) as Float64Array;
  for (let b = 0; b < 3; b++) for (let i = 0; i < n; i++) assert.ok(Math.abs((sol[b * n + i] as number) - (x[i] as number)) < 1e-13, `potrs ${b} ${i}`);

  // getrf/getrs (f32) on a matrix that needs pivoting: A = [[0,1,0],[2,0,1],[1,1,3]] (row-major listing).
  const G = new Float32Array([0, 2, 1, 1, 0, 1, 0, 1, 3]);
  const dG = dev.upload(new Float32Array([...G, ...G]));
  const pG = batchPointers(dev, dG, 2, 9);
  const piv = dev.alloc('int32', n * 2);
  const ginfo = dev.alloc('int32', 2);
  blas.getrfBatched('float32', n, pG, n, piv, ginfo, 2);
  assert.deepEqual(Array.from(dev.download(ginfo) as Int32Array), [0, 0]);
  const gb = new Float32Array(n * 2);
  for (let b = 0; b < 2; b++) for (let i = 0; i < n; i++) gb[b * n + i] = x.reduce((s, xv, j) => s + (G[i + j * n] as number) * xv, 0);
  const dGb = dev.upload(gb);
  const pGb = batchPointers(dev, dGb, 2, n);
  assert.equal(blas.getrsBatched('float32', 'N', n, 1, pG, n, piv, pGb, n, 2), 0);
  const gx = dev.download(dGb) as Float32Array;
  for (let b = 0; b < 2; b++) for (let i = 0; i < n; i++) assert.ok(Math.abs((gx[b * n + i] as number) - (x[i] as number)) < 1e-5, `getrs ${b} ${i}`);
  for (const d of [dA, info, dB, sinfo, dG, piv, ginfo, dGb]) d.dispose();
  for (const p of [pA, pB, pG, pGb]) p.dispose();
  solver.dispose();
  blas.dispose();
});

test('disposing a device frees its arrays', { skip }, async () => {
  const { openDevice } = await import('../../src/cuda/runtime/index.js');
  const dev = openDevice(0);
  const a = dev.alloc('float64', 1 << 20);
  assert.equal(dev.context.liveAllocations, 1);
  dev.dispose();
  assert.equal(a.disposed, true);
  assert.throws(() => a.ptr, (e: MyriadError) => e.code === 'DISPOSED');
  dev.dispose(); // idempotent
});
