/**
 * Every generated kernel source the tests and the tuning tables reach, as a sorted list of
 * `sha256  entry` lines: the proof that a refactor of the kernel wing changed no kernel.
 *
 *   npm run build && node dist/scripts/hash-kernels.js > scripts/kernel-hashes.txt
 *   node dist/scripts/hash-kernels.js | diff - scripts/kernel-hashes.txt
 *
 * Two ways in, both without a GPU:
 * - the launchers themselves (gemmCuda, tsm2Cuda, potrfCuda, ... as the registry calls them) on
 *   a fake device that records every KernelSource it is asked to load, over many shapes, dtypes,
 *   batch forms and devices: this covers the planners and every tuning-table entry they read;
 * - the generators called directly with the parameter sets of the tests and of forced variants
 *   (sweeps, benchmarks).
 * Only how this file reaches the generators may change with a refactor, never what it asks for.
 */
import { MAX_SWEEPS } from '../src/core/algorithms.js';
import { createHash } from 'node:crypto';
import { list, strided, variable, type Batch } from '../src/core/batch.js';
import type { DType } from '../src/core/dtype.js';
import type { Op, OpName } from '../src/core/ops.js';
import type { Uplo } from '../src/core/enums.js';
import type { DeviceArray, DeviceInfo, GpuDevice, HostArray, Kernel, KernelSource, DeviceDType } from '../src/cuda/runtime/types.js';
import { generateMmaGemm } from '../src/cuda/kernels/gemm/generate-mma.js';
import { generateTmaGemm } from '../src/cuda/kernels/gemm/generate-tma.js';
import { generateSmallGemm, smallGemmWork } from '../src/cuda/kernels/gemm/generate-small.js';
import { generateTiledGemm } from '../src/cuda/kernels/gemm/generate-tiled.js';
import { complexGemmCuda, gemmCuda, gemmSource } from '../src/cuda/kernels/gemm/launch.js';
import { complexPosvCuda, complexPotrfCuda, complexPotrsCuda } from '../src/cuda/kernels/zpotrf/index.js';
import { WARP_STEP_FROM, complexGesvCuda, complexGetrfCuda, complexGetrsCuda, complexLaswpSource, complexPanelSource, planComplexPanel } from '../src/cuda/kernels/complex-lu/index.js';
import { complexTrsmCuda, ztrsmServes } from '../src/cuda/kernels/ztrsm/index.js';
import { complexHerkCuda, complexSyrkCuda } from '../src/cuda/kernels/zherk/index.js';
import { complexTrmmCuda } from '../src/cuda/kernels/ztrmm/index.js';
import { complexGetriCuda, complexLauumCuda, complexPotiCuda, complexPotriCuda, complexTrtriCuda } from '../src/cuda/kernels/zinverse/index.js';
import { complexGesvdCuda, complexHeevCuda, planHeevRows } from '../src/cuda/kernels/zjacobi/index.js';
import { complexHeevTridiagCuda, type ZheevForce } from '../src/cuda/kernels/zheev/index.js';
import { gesvdBidiagCuda, type BidiagForce } from '../src/cuda/kernels/bidiag/index.js';
import { complexGesvdBidiagCuda } from '../src/cuda/kernels/zbidiag/index.js';
import { complexGelsCuda, complexGeqrfCuda, complexOrgqrCuda, complexOrmqrCuda } from '../src/cuda/kernels/zqr/index.js';
import type { ComplexOp } from '../src/core/op-specs.js';
import { chooseComplex, runRouted } from '../src/cuda/router.js';
import { gemmVbatchedCuda } from '../src/cuda/kernels/gemm/launch-vbatched.js';
import { gemmDeviceVariableCuda } from '../src/cuda/kernels/gemm/launch-vdevice.js';
import { potrfDeviceVariableCuda } from '../src/cuda/kernels/potrf/launch-vdevice.js';
import { getrfDeviceVariableCuda } from '../src/cuda/kernels/getrf/launch-vdevice.js';
import { trsmDeviceVariableCuda } from '../src/cuda/kernels/trsm/launch-vdevice.js';
import { posvDeviceVariableCuda, potrsDeviceVariableCuda } from '../src/cuda/kernels/solve/launch-vdevice.js';
import { gesvDeviceVariableCuda, getrsDeviceVariableCuda } from '../src/cuda/kernels/solve/launch-vdevice-lu.js';
import { syrkDeviceVariableCuda } from '../src/cuda/kernels/syrk/launch-vdevice.js';
import { trtriDeviceVariableCuda } from '../src/cuda/kernels/trtri/launch-vdevice.js';
import { variableDevice, type DeviceVariableBatch } from '../src/core/device-batch.js';
import { potrfVbatchedCuda } from '../src/cuda/kernels/potrf/launch-vbatched.js';
import { getrfVbatchedCuda } from '../src/cuda/kernels/getrf/launch-vbatched.js';
import { trsmVbatchedCuda } from '../src/cuda/kernels/trsm/launch-vbatched.js';
import { trtriVbatchedCuda } from '../src/cuda/kernels/trtri/launch-vbatched.js';
import { syrkVbatchedCuda } from '../src/cuda/kernels/syrk/launch-vbatched.js';
import { posvVbatchedCuda, potrsVbatchedCuda } from '../src/cuda/kernels/solve/launch-vbatched.js';
import { gesvVbatchedCuda, getrsVbatchedCuda } from '../src/cuda/kernels/solve/launch-vbatched-lu.js';
import type { GemmOperandLayouts, GemmParams, SmallGemmParams, TiledGemmParams } from '../src/cuda/kernels/gemm/params.js';
import { planGemm, type GemmProblem } from '../src/cuda/kernels/gemm/plan.js';
import { getrfPanelSource, getrfUpdateSource } from '../src/cuda/kernels/getrf/generate-panel.js';
import { getrfRegisterSource } from '../src/cuda/kernels/getrf/generate-register.js';
import { getrfSmallSource } from '../src/cuda/kernels/getrf/generate-small.js';
import { getrfLaswpSource, getrfSpreadSource, getrfSwapsSource, getrfTallSource, getrfWideSource, tallShape } from '../src/cuda/kernels/getrf/index.js';
import { tuningFor, type SyrkTilesBand, type TmaConfig } from '../src/cuda/model/tuning/index.js';
import { TMA_SWEEP_VARIANTS } from '../src/cuda/tune/gemm-tma-variants.js';
import { getrfForced, potrfForced, potrfSmall, type GetrfForce, type PotrfForce } from './hash-kernels-access.js';
import { potrfPanelSource } from '../src/cuda/kernels/potrf/generate-panel.js';
import { potrfRegisterSource } from '../src/cuda/kernels/potrf/generate-register.js';
import { gesvCuda, getrsCuda, posvCuda, potrsCuda } from '../src/cuda/kernels/solve/launch.js';
import { gesvSmallSource, posvSmallSource } from '../src/cuda/kernels/solve/generate-small.js';
import { substituteSource } from '../src/cuda/kernels/solve/generate-substitute.js';
import {
  generateScale, generateTsm2l, generateTsm2r, planTsm2l, planTsm2r, tsm2Cuda, type Tsm2lParams, type Tsm2Problem, type Tsm2rParams,
} from '../src/cuda/kernels/tsm2/index.js';
import { defaultTsm2Cases } from '../src/cuda/tune/tsm2-bench.js';
import { tsm2lGrid, tsm2rGrid } from '../src/cuda/tune/tsm2-sweep.js';
import { trmmCuda, trmmPipelinedSource, trmmRegisterLeafSource, trsmChainSource, trsmCuda, trsmLeafSource, trsmZeroSource } from '../src/cuda/kernels/trsm/index.js';
import { leafTile, syrkCuda, syrkLeafSource, syrkTilesSource } from '../src/cuda/kernels/syrk/index.js';
import { lauumCuda, lauumLeafSource } from '../src/cuda/kernels/lauum/index.js';
import {
  THREAD_MAX, gesvdBlockSource, gesvdCuda, gesvdRowsSource, gesvdWarpSource, planGesvd, planGesvdBlock, planSyev, planSyevBlock, syevBlockSource, syevCuda,
  syevRowsSource, syevWarpSource,
} from '../src/cuda/kernels/jacobi/index.js';
import { planSyevSplit, planSyevTridiag, syevTridiagSource, tridiagApplySource, type TridiagForce } from '../src/cuda/kernels/tridiag/index.js';
import { QL_THREAD_LIMIT, planQlThread, qlThreadSource } from '../src/cuda/kernels/ql-thread/index.js';
import { REGISTER_DESIGN_MAX, registerWarps } from '../src/cuda/kernels/common/register-tile.js';
import { LEAF_SIZES, trtriCuda, trtriLeafSource, trtriScanSource, trtriVbatchedLeafSource, trtriVbatchedScanSource } from '../src/cuda/kernels/trtri/index.js';
import { potiCuda, potiFusedSource, potriCuda } from '../src/cuda/kernels/poti/index.js';
import {
  geqrfCuda, geqrfSharedSource, geqrfThreadSource, orgqrCuda, orgqrSharedSource, orgqrThreadSource, planQr, planQrThread, qrCovers, qrFits,
  type QrForce, type QrOptions, type QrSharedParams, type QrThreadParams,
} from '../src/cuda/kernels/qr/index.js';
import { lasetSource, wyFactorSource } from '../src/cuda/kernels/common/wy.js';
import { ormqrBlockSource, ormqrCuda } from '../src/cuda/kernels/ormqr/index.js';
import { gelsCheckSource, gelsCovers, gelsCuda, gelsFinishSource } from '../src/cuda/kernels/gels/index.js';
import { getriCuda, getriFinishSource, getriPrepareSource } from '../src/cuda/kernels/getri/index.js';
import { transposeSource } from '../src/cuda/kernels/common/transpose.js';
import { generateChol, generateReduce, generateRows, planTsqr, tsqrCuda } from '../src/cuda/kernels/tsqr/index.js';
import { getrfScatterSource, potrfInfoSource, potrfScanSource, syevPackSource, syevUnpackSource } from '../src/cuda/vendor/kernels.js';
import { densePackSource, denseUnpackSource, gesvdValuesSource } from '../src/cuda/vendor/kernels-dense.js';

// ---------------------------------------------------------------------------------------------
// Devices (as test/helpers/devices.ts) and the recording fake.

const H100: DeviceInfo = {
  ordinal: 0, name: 'NVIDIA H100 80GB HBM3', arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32,
  maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536,
  sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1980000,
  memoryClockKHz: 2619000, memoryBusWidthBits: 5120, l2Bytes: 52428800, totalMemoryBytes: 85e9,
};
const A100: DeviceInfo = { ...H100, name: 'A100', arch: 'sm_80', major: 8, minor: 0, smCount: 108, clockKHz: 1410000, sharedPerBlockOptin: 166912, sharedPerSM: 167936 };
const T4: DeviceInfo = { ...H100, name: 'T4', arch: 'sm_75', major: 7, minor: 5, smCount: 40, sharedPerBlockOptin: 65536, sharedPerSM: 65536, maxThreadsPerSM: 1024, maxBlocksPerSM: 16 };
const DEVICES = [H100, A100, T4];

const seen = new Map<string, KernelSource>();
function record(src: KernelSource): void {
  const key = hash(src);
  seen.set(key, src);
}
function ifPlanned(make: () => KernelSource): void {
  let src: KernelSource;
  try {
    src = make();
  } catch {
    return;
  }
  record(src);
}
const hash = (s: KernelSource): string =>
  createHash('sha256').update(JSON.stringify([s.name, s.entry, s.options ?? [], s.source])).digest('hex');

let nextPtr = 0x10000n;
function fakeArray(dtype: DeviceDType, length: number): DeviceArray {
  const bytes = dtype === 'float32' || dtype === 'int32' ? 4 : 8;
  const ptr = nextPtr;
  nextPtr += BigInt(Math.ceil((length * bytes + 256) / 256) * 256);
  return { kind: 'device', dtype, length, device: 0, ptr, byteLength: length * bytes, disposed: false, dispose() {} };
}

function fakeDevice(info: DeviceInfo): GpuDevice {
  const kernel = (src: KernelSource): Kernel => {
    record(src);
    return { name: src.entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024, launch() {} };
  };
  return {
    info, kernel,
    alloc: fakeArray,
    upload: (host: HostArray) => fakeArray(host instanceof Int32Array ? 'int32' : host instanceof BigInt64Array ? 'int64' : host instanceof Float32Array ? 'float32' : 'float64', host.length),
    download: () => new Float64Array(0),
    copy() {}, fill() {}, synchronize() {},
    view: (a: DeviceArray, _start: number, length: number, dtype?: DeviceDType) => fakeArray(dtype ?? a.dtype, length),
    pin: () => false, uploadRange() {}, awaitUploads() {}, downloadRange() {}, idle: async () => {},
    event: () => { throw new Error('no events on the hashing device'); },
    streamHandle: null,
    dispose() {},
  };
}

// ---------------------------------------------------------------------------------------------
// Batches on the fake device: strided (dense and padded), list, variable.

type Form = 'dense' | 'padded' | 'list' | 'variable';
const FORMS: readonly Form[] = ['dense', 'padded', 'list', 'variable'];

function batch(dtype: DType, rows: number, cols: number, count: number, form: Form): Batch<DeviceArray> {
  const ld = Math.max(1, form === 'padded' ? rows + 1 : rows);
  const size = Math.max(1, ld * cols);
  if (form === 'dense' || form === 'padded') return strided(fakeArray(dtype, size * count), { rows, cols, ld, count });
  if (form === 'list') return list(Array.from({ length: count }, () => fakeArray(dtype, size)), { rows, cols, ld });
  // variable: two shapes, the given one and one a row/column smaller (where possible).
  return variable(Array.from({ length: count }, (_, i) => {
    const r = i % 2 === 1 && rows > 1 ? rows - 1 : rows;
    const c = i % 2 === 1 && cols > 1 ? cols - 1 : cols;
    return { data: fakeArray(dtype, Math.max(1, ld * c)), rows: r, cols: c, ld };
  }));
}

const DTYPES: readonly DType[] = ['float64', 'float32'];
const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];
const UPLOS: readonly Uplo[] = ['lower', 'upper'];

// ---------------------------------------------------------------------------------------------
// GEMM: the launcher over shapes, forms and devices; then the test's parameter sets.

function gemmThroughLauncher(): void {
  const sizes = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 20, 24, 25, 31, 32, 33, 40, 48, 49, 64, 65, 96, 97, 100, 128, 160, 161, 200, 256];
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const [transA, transB] of OPS) for (const n of sizes) {
      for (const [m, k] of [[n, n], [Math.max(1, n - 3), n + 1], [n, 1]] as const) {
        for (const form of FORMS) for (const count of [3, 1000, 200000]) for (const beta of [0, 1]) {
          if (form !== 'dense' && count > 1000) continue;
          const a = batch(dtype, transA === 'N' ? m : k, transA === 'N' ? k : m, count, form);
          const b = batch(dtype, transB === 'N' ? k : n, transB === 'N' ? n : k, count, form);
          const c = batch(dtype, m, n, count, form);
          if (form === 'variable') {
            // variable batches need consistent shapes per matrix: one shape only.
            const one = (r: number, q: number): Batch<DeviceArray> => variable(Array.from({ length: count }, () => ({ data: fakeArray(dtype, r * q), rows: r, cols: q })));
            gemmCuda(dev, { transA, transB, alpha: 1, beta, a: one(transA === 'N' ? m : k, transA === 'N' ? k : m), b: one(transB === 'N' ? k : n, transB === 'N' ? n : k), c: one(m, n) });
            continue;
          }
          gemmCuda(dev, { transA, transB, alpha: 1, beta, a, b, c });
          for (const variant of ['tiled', 'mma'] as const) {
            if (variant === 'mma' && (dtype !== 'float64' || info.major < 8)) continue;
            if (count > 1000) continue;
            gemmCuda(dev, { transA, transB, alpha: 1, beta, a, b, c }, { variant });
          }
        }
      }
    }
  }
}

/**
 * Fake complex batches of `count` matrices of `dtype`'s pairs: `one(rows, cols)` strided (ld = rows,
 * or rows + 1 where `padded`) or a list of `count` arrays.
 */
function complexBatches(dtype: (typeof DTYPES)[number], form: 'dense' | 'padded' | 'list', count: number): (rows: number, cols: number) => Batch<DeviceArray> {
  const type = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
  return (rows, cols) => {
    const ld = Math.max(1, form === 'padded' ? rows + 1 : rows);
    const size = Math.max(1, ld * cols);
    return form === 'list'
      ? list(Array.from({ length: count }, () => fakeArray(dtype, 2 * size)), { rows, cols, ld, dtype: type })
      : strided(fakeArray(dtype, 2 * size * count), { rows, cols, ld, count, dtype: type });
  };
}

/** Complex gemm (complex128, complex64; ops N, T, C) through its launcher: strided (dense, padded) and list batches. */
function complexGemmThroughLauncher(): void {
  const sizes = [1, 2, 3, 5, 8, 13, 16, 17, 24, 32, 33, 48, 64, 65, 128];
  const ops: readonly ComplexOp[] = ['N', 'T', 'C'];
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const transA of ops) for (const transB of ops) for (const n of sizes) {
      for (const form of ['dense', 'padded', 'list'] as const) for (const count of [3, 100000]) for (const beta of [0, 1]) {
        if (form === 'list' && count > 3) continue;
        const [m, k] = [n, n];
        const one = complexBatches(dtype, form, count);
        complexGemmCuda(dev, {
          transA, transB, alpha: [1, 0.5], beta: [beta, 0],
          a: one(transA === 'N' ? m : k, transA === 'N' ? k : m), b: one(transB === 'N' ? k : n, transB === 'N' ? n : k), c: one(m, n),
        });
      }
    }
  }
}

/** The orders above 32 the complex recursions (trsm, herk, the Cholesky family) are hashed at: their leaves and GEMM updates. */
const COMPLEX_RECURSION_ORDERS = [33, 47, 100];

/** Complex potrf, potrs, posv (complex128, complex64; lower, upper) through their launchers: n = 0 ... 32 and the recursion's orders, strided and list batches, 1 ... 7 right-hand sides. */
function complexCholeskyThroughLaunchers(): void {
  const dev = fakeDevice(H100);
  const orders = [...Array.from({ length: 33 }, (_, n) => n), ...COMPLEX_RECURSION_ORDERS];
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of orders) for (const form of ['padded', 'list'] as const) {
    const count = 3;
    const one = complexBatches(dtype, form, count);
    const info = fakeArray('int32', count);
    complexPotrfCuda(dev, { uplo, a: one(n, n), info });
    for (const nrhs of [1, 2, 3, 4, 7]) {
      complexPotrsCuda(dev, { uplo, a: one(n, n), b: one(n, nrhs), info });
      complexPosvCuda(dev, { uplo, a: one(n, n), b: one(n, nrhs), info });
    }
  }
}

/** The complex triangle launchers (trsm, trmm; complex128, complex64; every side, uplo, trans, diag): orders 0 ... 32 (a spread) and the recursion's, strided and list batches, 1 ... 9 vectors. */
function complexTriangleThroughLaunchers(launch: typeof complexTrsmCuda | typeof complexTrmmCuda): void {
  const dev = fakeDevice(H100);
  for (const dtype of DTYPES) for (const form of ['padded', 'list'] as const) for (const n of [0, 1, 2, 7, 16, 31, 32, ...COMPLEX_RECURSION_ORDERS]) for (const vectors of [1, 3, 9]) {
    const count = 3;
    const one = complexBatches(dtype, form, count);
    for (const side of ['left', 'right'] as const) for (const uplo of UPLOS) for (const transA of ['N', 'T', 'C'] as const) for (const diag of ['unit', 'nonunit'] as const) {
      const b = side === 'left' ? one(n, vectors) : one(vectors, n);
      launch(dev, { side, uplo, transA, diag, alpha: [1, -0.5], a: one(n, n), b });
    }
  }
}

/** The complex rank-k launchers (herk: N, C; syrk: N, T; complex128, complex64; lower, upper): n = 0 ... 32 and the recursion's orders, strided and list batches. */
function complexRankKThroughLaunchers(op: 'herk' | 'syrk'): void {
  const dev = fakeDevice(H100);
  for (const dtype of DTYPES) for (const form of ['padded', 'list'] as const) for (const n of [...Array.from({ length: 33 }, (_, i) => i), ...COMPLEX_RECURSION_ORDERS]) {
    const count = 3;
    const one = complexBatches(dtype, form, count);
    for (const uplo of UPLOS) for (const trans of (op === 'herk' ? ['N', 'C'] : ['N', 'T']) as readonly ('N' | 'T' | 'C')[]) {
      const a = trans === 'N' ? one(n, 5) : one(5, n), c = one(n, n);
      if (op === 'herk') complexHerkCuda(dev, { uplo, trans: trans as 'N' | 'C', alpha: 1, beta: 0.5, a, c });
      else complexSyrkCuda(dev, { uplo, trans: trans as 'N' | 'T', alpha: [1, 0.5], beta: [0.5, -1], a, c });
    }
  }
}

/** Complex trtri, lauum, potri, poti, getri (complex128, complex64; lower, upper; unit, non-unit) through their launchers: orders across the leaf and the recursion's, strided and list batches. */
function complexInversesThroughLaunchers(): void {
  const dev = fakeDevice(H100);
  for (const dtype of DTYPES) for (const n of [0, 1, 5, 32, ...COMPLEX_RECURSION_ORDERS]) for (const form of ['padded', 'list'] as const) {
    const count = 3;
    const one = complexBatches(dtype, form, count);
    const info = fakeArray('int32', count);
    for (const uplo of UPLOS) {
      for (const diag of ['unit', 'nonunit'] as const) complexTrtriCuda(dev, { uplo, diag, a: one(n, n), info });
      complexLauumCuda(dev, { uplo, a: one(n, n), info });
      complexPotriCuda(dev, { uplo, a: one(n, n), info });
      complexPotiCuda(dev, { uplo, a: one(n, n), info });
    }
    complexGetriCuda(dev, { a: one(n, n), ipiv: fakeArray('int32', Math.max(1, n * count)), pivotStride: n, info });
  }
}

/** Complex heev (complex128, complex64; lower, upper; vectors, values) through its launcher: n = 0 ... 32, strided and list batches; the rows design forced, V in either place. */
function complexHeevThroughLauncher(): void {
  const dev = fakeDevice(H100);
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (let n = 0; n <= 32; n++) for (const form of ['padded', 'list'] as const) for (const jobz of ['vectors', 'values'] as const) {
    const type = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
    const count = 3;
    const ld = Math.max(1, n + 1);
    const size = Math.max(1, ld * n);
    const a = form === 'list'
      ? list(Array.from({ length: count }, () => fakeArray(dtype, 2 * size)), { rows: n, cols: n, ld, dtype: type })
      : strided(fakeArray(dtype, 2 * size * count), { rows: n, cols: n, ld, count, dtype: type });
    const w = form === 'list'
      ? list(Array.from({ length: count }, () => fakeArray(dtype, Math.max(1, n))), { rows: n, cols: 1 })
      : strided(fakeArray(dtype, Math.max(1, n) * count), { rows: n, cols: 1, count });
    complexHeevCuda(dev, { jobz, uplo, a, w, info: fakeArray('int32', count) });
    // The rows design forced (n >= 1), V where the plan keeps it and, with vectors, in the other place.
    if (n === 0) continue;
    const vShared = planHeevRows({ dtype, n, uplo, vectors: jobz === 'vectors', kind: form === 'list' ? 'pointer' : 'strided' }).vShared;
    for (const force of jobz === 'vectors' ? [{ design: 'rows' as const }, { design: 'rows' as const, vShared: !vShared }] : [{ design: 'rows' as const }])
      complexHeevCuda(dev, { jobz, uplo, a, w, info: fakeArray('int32', count) }, { force });
  }
}

/**
 * Complex heev above 32 (zheev/: reduce, the tridiag family's values and vectors kernels, store) through its launcher:
 * the router's orders (33 ... 512: the tests' sizes), both dtypes, triangles, jobs and forms; the host emulation's
 * forced shapes (small orders, 32 threads at 70, one inverse iteration at 36).
 */
function complexHeevTridiagThroughLauncher(): void {
  const dev = fakeDevice(H100);
  const call = (dtype: DType, uplo: Uplo, n: number, form: 'padded' | 'list', jobz: 'vectors' | 'values', force?: ZheevForce): void => {
    const type = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
    const count = 2;
    const ld = n + 1;
    const a = form === 'list'
      ? list(Array.from({ length: count }, () => fakeArray(dtype, 2 * ld * n)), { rows: n, cols: n, ld, dtype: type })
      : strided(fakeArray(dtype, 2 * ld * n * count), { rows: n, cols: n, ld, count, dtype: type });
    const w = form === 'list'
      ? list(Array.from({ length: count }, () => fakeArray(dtype, n)), { rows: n, cols: 1 })
      : strided(fakeArray(dtype, n * count), { rows: n, cols: 1, count });
    complexHeevTridiagCuda(dev, { jobz, uplo, a, w, info: fakeArray('int32', count) }, { force });
  };
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of [33, 40, 47, 64, 65, 100, 128, 256, 512]) for (const form of ['padded', 'list'] as const)
    for (const jobz of ['vectors', 'values'] as const) call(dtype, uplo, n, form, jobz);
  for (const n of [1, 2, 3, 5]) for (const uplo of UPLOS) call('float64', uplo, n, 'padded', 'vectors');
  call('float64', 'upper', 70, 'list', 'vectors', { threads: 32 });
  call('float64', 'lower', 36, 'padded', 'vectors', { steinMaxits: 1 });
}

/**
 * gesvd by bidiagonalization (bidiag/: reduce, the tridiag family's upper-half values and vectors kernels,
 * vectors, ormqr, store) through its launcher: the tests' shapes, both dtypes, every choice of U and VT,
 * strided and list batches; the host emulation's shapes.
 */
function gesvdBidiagThroughLauncher(): void {
  const dev = fakeDevice(H100);
  const call = (dtype: DType, m: number, n: number, form: 'padded' | 'list', wantU: boolean, wantVt: boolean, force?: BidiagForce): void => {
    const count = 2, k = Math.min(m, n);
    const one = (rows: number, cols: number): Batch<DeviceArray> => {
      const ld = rows + 1;
      return form === 'list'
        ? list(Array.from({ length: count }, () => fakeArray(dtype, ld * cols)), { rows, cols, ld })
        : strided(fakeArray(dtype, ld * cols * count), { rows, cols, ld, count });
    };
    gesvdBidiagCuda(dev, { a: one(m, n), s: one(k, 1), u: wantU ? one(m, k) : undefined, vt: wantVt ? one(k, n) : undefined, info: fakeArray('int32', count) }, { force });
  };
  const shapes = [[33, 33], [40, 33], [33, 40], [47, 47], [64, 64], [100, 64], [64, 100], [100, 100], [130, 100], [128, 128], [300, 128], [256, 256], [256, 200],
    [512, 512], [600, 512], [512, 600], [90, 47], [47, 90], [70, 64], [50, 36], [36, 50], [47, 40], [40, 47]] as const;
  for (const dtype of DTYPES) for (const [m, n] of shapes) for (const form of ['padded', 'list'] as const)
    for (const [wantU, wantVt] of [[true, true], [false, false], [true, false], [false, true]] as const) call(dtype, m, n, form, wantU, wantVt);
  // Each reduction forced: dgebd2 alone where the table blocks it, the panels (the tests' widths) where it does not.
  for (const dtype of DTYPES) {
    for (const [m, n] of [[256, 256], [256, 200], [512, 512], [600, 512], [512, 600]] as const)
      for (const form of ['padded', 'list'] as const) call(dtype, m, n, form, true, true, { reduction: 'unblocked' });
    for (const [m, n, nb] of [[40, 33, 8], [33, 40, 8], [64, 64, 8], [100, 64, 8], [64, 100, 16], [130, 100, 8], [130, 130, 16], [47, 40, 8], [40, 47, 8],
      [50, 36, 7], [36, 50, 7], [90, 47, 8], [47, 90, 8], [200, 150, 32], [150, 200, 32], [200, 200, 24], [70, 64, 16]] as const)
      call(dtype, m, n, 'padded', true, true, { reduction: 'panels', nb });
  }
}

/**
 * Complex gesvd by bidiagonalization (zbidiag/: reduce, the tridiag family's upper-half values and vectors kernels,
 * the bidiag family's vectors kernel, widen, the zqr family's unmqr, store) through its launcher: the tests' shapes,
 * both dtypes, every choice of U and VT, strided and list batches.
 */
function complexGesvdBidiagThroughLauncher(): void {
  const dev = fakeDevice(H100);
  const call = (dtype: DType, m: number, n: number, form: 'padded' | 'list', wantU: boolean, wantVt: boolean): void => {
    const type = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
    const count = 2, k = Math.min(m, n);
    const one = (rows: number, cols: number): Batch<DeviceArray> => {
      const ld = rows + 1;
      return form === 'list'
        ? list(Array.from({ length: count }, () => fakeArray(dtype, 2 * ld * cols)), { rows, cols, ld, dtype: type })
        : strided(fakeArray(dtype, 2 * ld * cols * count), { rows, cols, ld, count, dtype: type });
    };
    const s = form === 'list'
      ? list(Array.from({ length: count }, () => fakeArray(dtype, k)), { rows: k, cols: 1 })
      : strided(fakeArray(dtype, k * count), { rows: k, cols: 1, count });
    complexGesvdBidiagCuda(dev, { a: one(m, n), s, u: wantU ? one(m, k) : undefined, vt: wantVt ? one(k, n) : undefined, info: fakeArray('int32', count) });
  };
  const shapes = [[33, 33], [40, 33], [33, 40], [47, 47], [60, 47], [40, 52], [47, 60], [64, 64], [100, 65], [65, 100], [128, 128], [200, 150], [150, 200],
    [256, 256], [512, 512], [700, 512], [512, 700], [50, 36], [36, 50]] as const;
  for (const dtype of DTYPES) for (const [m, n] of shapes) for (const form of ['padded', 'list'] as const)
    for (const [wantU, wantVt] of [[true, true], [false, false], [true, false], [false, true]] as const) call(dtype, m, n, form, wantU, wantVt);
}

/** Complex gesvd (complex128, complex64; every choice of U and VT) through its launcher: the tests' shapes, strided and list batches. */
function complexGesvdThroughLauncher(): void {
  const dev = fakeDevice(H100);
  const shapes = [[1, 1], [2, 2], [3, 3], [4, 1], [1, 4], [5, 3], [3, 5], [5, 5], [8, 8], [13, 13], [16, 16], [20, 13], [13, 20], [32, 1], [1, 32],
    [32, 7], [7, 32], [6, 32], [31, 17], [31, 31], [32, 32]] as const;
  for (const dtype of DTYPES) for (const [m, n] of shapes) for (const form of ['padded', 'list'] as const)
    for (const [wantU, wantVt] of [[true, true], [false, false], [true, false], [false, true]] as const) {
      const type = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
      const count = 3;
      const k = Math.min(m, n);
      const one = (rows: number, cols: number): Batch<DeviceArray> => {
        const ld = rows + 1;
        return form === 'list'
          ? list(Array.from({ length: count }, () => fakeArray(dtype, 2 * ld * cols)), { rows, cols, ld, dtype: type })
          : strided(fakeArray(dtype, 2 * ld * cols * count), { rows, cols, ld, count, dtype: type });
      };
      const s = form === 'list'
        ? list(Array.from({ length: count }, () => fakeArray(dtype, k)), { rows: k, cols: 1 })
        : strided(fakeArray(dtype, k * count), { rows: k, cols: 1, count });
      complexGesvdCuda(dev, { a: one(m, n), s, u: wantU ? one(m, k) : undefined, vt: wantVt ? one(k, n) : undefined, info: fakeArray('int32', count) });
    }
}

/**
 * Complex variable batches through the router's complex lists (the families' launchers once per
 * group of one shape and ld, the integer move between the groups' arrays and the batch's places):
 * every operation with complex GPU routes, orders 0, 3, 5 (two lds), 17 and 40 (heev and gesvd 32; potrf and posv
 * by their route's name).
 */
function complexVariableThroughRouter(): void {
  const dev = fakeDevice(H100);
  for (const dtype of DTYPES) {
    const type = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
    const members = (shapes: readonly (readonly [number, number, number])[], complex = true): Batch<DeviceArray> =>
      variable(shapes.map(([rows, cols, pad]) => ({ data: fakeArray(dtype, 2 * Math.max(1, (rows + pad) * cols)), rows, cols, ld: Math.max(1, rows + pad) })), complex ? { dtype: type } : {});
    const orders = (top: number): number[] => [0, 3, 5, 5, 17, top];
    const square = (ns: number[]): Batch<DeviceArray> => members(ns.map((n, p) => [n, n, p % 2] as const));
    const rhs = (ns: number[]): Batch<DeviceArray> => members(ns.map((n, p) => [n, 1 + (p % 3), p % 2] as const));
    const ns = orders(40), small = orders(32), count = ns.length;
    const info = fakeArray('int32', count), ipiv = fakeArray('int32', count * 40);
    // potrf and posv by name: the router keeps their batches with a member above 32 on the CPU reference (router.ts).
    const routed = (op: OpName, r: Record<string, unknown>): void => {
      const { candidate } = chooseComplex(op, r, dev, op === 'potrf' || op === 'posv' ? op : undefined);
      if (candidate.run === undefined) throw new Error(`complex variable ${op}: no GPU route`);
      (candidate.run as unknown as (dev: GpuDevice, r: Record<string, unknown>) => void)(dev, r);
    };
    routed('gemm', { transA: 'N', transB: 'C', alpha: [1, 0], a: square(ns), b: members(ns.map((n, p) => [1 + (p % 3), n, p % 2] as const)), beta: [0, 0], c: rhs(ns) });
    routed('trsm', { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: [1, 0], a: square(ns), b: rhs(ns) });
    routed('herk', { uplo: 'upper', trans: 'N', alpha: 1, a: rhs(ns), beta: 0, c: square(ns) });
    for (const uplo of UPLOS) {
      routed('potrf', { uplo, a: square(ns), info });
      routed('potrs', { uplo, a: square(ns), b: rhs(ns), info });
      routed('posv', { uplo, a: square(ns), b: rhs(ns), info });
      routed('heev', { jobz: 'vectors', uplo, a: square(small), w: members(small.map((n) => [n, 1, 0] as const), false), info });
    }
    routed('getrf', { a: square(ns), ipiv, pivotStride: 40, info });
    routed('getrs', { trans: 'C', a: square(ns), ipiv, pivotStride: 40, b: rhs(ns), info });
    routed('gesv', { trans: 'N', a: square(ns), ipiv, pivotStride: 40, b: rhs(ns), info });
    const rect = small.map((n, p) => [n, p % 2 === 0 ? n : Math.max(0, n - 2), 0] as const);
    routed('gesvd', {
      a: members(rect), s: members(rect.map(([m, n]) => [Math.min(m, n), 1, 0] as const), false),
      u: members(rect.map(([m, n]) => [m, Math.min(m, n), 0] as const)), vt: members(rect.map(([m, n]) => [Math.min(m, n), n, 0] as const)), info,
    });
  }
}

/**
 * Complex geqrf, orgqr (ungqr), ormqr (unmqr; left, right; N, C) and gels through their launchers (complex128, complex64):
 * the shared kernel's warp and block scopes, the blocked drivers (by default from 128 reflectors or where the tile
 * does not fit, and forced with narrow panels), strided and list batches, and a variable batch through the router.
 */
function complexQrThroughLaunchers(): void {
  const dev = fakeDevice(H100);
  const shapes = [[1, 1], [5, 3], [3, 7], [32, 32], [33, 20], [40, 47], [64, 64], [65, 64], [100, 100], [128, 100], [128, 128], [140, 130], [256, 256]] as const;
  for (const dtype of DTYPES) for (const form of ['padded', 'list'] as const) {
    const count = 3;
    const one = complexBatches(dtype, form, count);
    const info = fakeArray('int32', count);
    for (const [m, n] of shapes) {
      const k = Math.min(m, n);
      complexGeqrfCuda(dev, { a: one(m, n), tau: one(k, 1), info });
      if (m >= n) complexOrgqrCuda(dev, { a: one(m, n), tau: one(n, 1) });
      for (const side of ['left', 'right'] as const) for (const trans of ['N', 'C'] as const) {
        complexOrmqrCuda(dev, { side, trans, a: one(m, k), tau: one(k, 1), c: side === 'left' ? one(m, 5) : one(5, m) });
      }
    }
    complexGeqrfCuda(dev, { a: one(70, 40), tau: one(40, 1), info }, { force: { design: 'blocked', panel: 16, tailMax: 0 } });
    complexOrgqrCuda(dev, { a: one(64, 50), tau: one(37, 1) }, { force: { design: 'blocked', panel: 16, tailMax: 20 } });
    for (const side of ['left', 'right'] as const) for (const trans of ['N', 'C'] as const) {
      complexOrmqrCuda(dev, { side, trans, a: one(40, 35), tau: one(35, 1), c: side === 'left' ? one(40, 6) : one(6, 40) }, { force: { design: 'blocked', panel: 8 } });
    }
    // gels: tall and wide, the solve's leaf and its recursion.
    for (const [m, n] of [[8, 5], [5, 8], [33, 33], [40, 33], [20, 47], [100, 64]] as const) {
      complexGelsCuda(dev, { a: one(m, n), b: one(Math.max(m, n), 3), info });
    }
    const type = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
    const members = (sh: readonly (readonly [number, number])[]): Batch<DeviceArray> =>
      variable(sh.map(([rows, cols]) => ({ data: fakeArray(dtype, 2 * Math.max(1, rows * cols)), rows, cols, ld: Math.max(1, rows) })), { dtype: type });
    const sizes = [[3, 3], [5, 4], [5, 4], [17, 9], [40, 40]] as const;
    const { candidate } = chooseComplex('geqrf', { a: members(sizes), tau: members(sizes.map(([m, n]) => [Math.min(m, n), 1] as const)), info }, dev);
    if (candidate.run === undefined) throw new Error('complex variable geqrf: no GPU route');
    (candidate.run as unknown as (dev: GpuDevice, r: Record<string, unknown>) => void)(dev,
      { a: members(sizes), tau: members(sizes.map(([m, n]) => [Math.min(m, n), 1] as const)), info: fakeArray('int32', sizes.length) });
  }
}

/** Complex LU (zgetrf, zgetrs N / T / C, zgesv; complex128, complex64) through its launchers: n = 1 ... 32, strided and list batches. */
function complexLuThroughLaunchers(): void {
  const dev = fakeDevice(H100);
  for (const dtype of DTYPES) for (const form of ['padded', 'list'] as const) {
    const count = 3;
    const one = complexBatches(dtype, form, count);
    const ints = (n: number): DeviceArray => fakeArray('int32', Math.max(1, n * count));
    for (let n = 1; n <= 32; n++) {
      // The plan's step, and from WARP_STEP_FROM rows also the group step (forced: the plan takes the warp step there).
      // complex128 at 32 takes its reciprocal out of line by default: the inline form stays listed (forced).
      const steps = n >= WARP_STEP_FROM ? [{}, { force: { step: 'group' as const } }, { force: { reciprocalCall: false } }] : [{}];
      for (const options of steps) {
        for (const cols of [n, Math.ceil(n / 2), Math.min(32, 2 * n)]) complexGetrfCuda(dev, { a: one(n, cols), ipiv: ints(n), pivotStride: Math.min(n, cols), info: ints(1) }, options);
        for (const nrhs of [1, 3, 9]) complexGesvCuda(dev, { a: one(n, n), b: one(n, nrhs), ipiv: ints(n), pivotStride: n, info: ints(1) }, options);
      }
      if (n >= WARP_STEP_FROM) {
        // The warp step's reciprocal out of line (forced; square getrf and one right-hand side).
        const options = { force: { reciprocalCall: true } };
        complexGetrfCuda(dev, { a: one(n, n), ipiv: ints(n), pivotStride: n, info: ints(1) }, options);
        complexGesvCuda(dev, { a: one(n, n), b: one(n, 1), ipiv: ints(n), pivotStride: n, info: ints(1) }, options);
        // gesv's LU of A alone, then the sweeps (forced; one right-hand side, with 2 and 1 warps a block).
        for (const warps of [2, 1]) complexGesvCuda(dev, { a: one(n, n), b: one(n, 1), ipiv: ints(n), pivotStride: n, info: ints(1) }, { force: { solveAfter: true, warps, reciprocalCall: false } });
        // The warp step's L2 prefetch (forced; the probe's distances).
        for (const prefetchWarps of [10, 16]) {
          complexGetrfCuda(dev, { a: one(n, n), ipiv: ints(n), pivotStride: n, info: ints(1) }, { force: { prefetchWarps, reciprocalCall: false } });
          complexGesvCuda(dev, { a: one(n, n), b: one(n, 1), ipiv: ints(n), pivotStride: n, info: ints(1) }, { force: { prefetchWarps, reciprocalCall: false } });
        }
      }
      for (const nrhs of [1, 3, 9]) {
        for (const trans of ['N', 'T', 'C'] as const) complexGetrsCuda(dev, { trans, a: one(n, n), b: one(n, nrhs), ipiv: ints(n), pivotStride: n, info: ints(1) });
      }
    }
    // Above 32: the blocked steps (panel, laswp, the complex trsm of the panel's triangle, gemm).
    for (const [rows, cols] of [[33, 33], [47, 47], [64, 64], [100, 100], [129, 129], [256, 256], [1000, 1000], [40, 70], [70, 40]] as const) {
      complexGetrfCuda(dev, { a: one(rows, cols), ipiv: ints(Math.min(rows, cols)), pivotStride: Math.min(rows, cols), info: ints(1) });
    }
    // Their solves run the complex trsm of order n: where its family takes the order.
    for (const n of [33, 64, 129].filter((x) => ztrsmServes(x))) {
      for (const trans of ['N', 'T', 'C'] as const) complexGetrsCuda(dev, { trans, a: one(n, n), b: one(n, 3), ipiv: ints(n), pivotStride: n, info: ints(1) });
      complexGesvCuda(dev, { a: one(n, n), b: one(n, 3), ipiv: ints(n), pivotStride: n, info: ints(1) });
    }
  }
}

/** The blocked complex LU's own kernels by their generators: the panel at every height class, the laswp both ways. */
function complexLuDirect(): void {
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const) {
    for (const m of [1, 33, 64, 100, 256, 5000]) record(complexPanelSource(planComplexPanel(dtype, m, kind)));
    for (const reverse of [false, true]) record(complexLaswpSource({ dtype, kind, reverse }));
  }
}

const stridedLayout = (dense: boolean) => ({ kind: 'strided' as const, dense });
const pointer = { kind: 'pointer' as const, dense: false };
const DENSE: GemmOperandLayouts = { a: stridedLayout(true), b: stridedLayout(true), c: stridedLayout(true) };
const LOOSE: GemmOperandLayouts = { a: stridedLayout(false), b: stridedLayout(false), c: stridedLayout(false) };
const MIXED: GemmOperandLayouts = { a: pointer, b: stridedLayout(false), c: pointer };
const MIXED_PLAIN: GemmOperandLayouts = { a: stridedLayout(false), b: pointer, c: stridedLayout(false) };

function small(over: Partial<SmallGemmParams>): SmallGemmParams {
  const q = {
    variant: 'small' as const, dtype: 'float64' as const, transA: 'N' as const, transB: 'N' as const, m: 8, n: 8, k: 8, tbc: 4, rn: 1,
    stageC: true, betaZero: false, layouts: DENSE, ...over,
  };
  return { ...q, threads: over.threads ?? Math.min(1024, smallGemmWork(q)) };
}
function tiled(over: Partial<TiledGemmParams>): TiledGemmParams {
  return { variant: 'tiled', dtype: 'float64', transA: 'N', transB: 'N', bm: 64, bn: 64, bk: 16, tm: 4, tn: 4, betaZero: false, layouts: LOOSE, ...over };
}
function problem(over: Partial<GemmProblem>): GemmProblem {
  return { dtype: 'float64', transA: 'N', transB: 'N', m: 8, n: 8, k: 8, count: 1e6, batchKind: 'strided', betaZero: true, ...over };
}

/** test/cuda/gemm-generate.test.ts: purity variants and representativeKernels(). */
function gemmTestParams(): GemmParams[] {
  const out: GemmParams[] = [small({}), small({ transA: 'T', layouts: MIXED, betaZero: true }), tiled({}), tiled({ dtype: 'float32', transB: 'T' }),
    small({ tbc: 8 }), small({ rn: 2 }), small({ dtype: 'float32' }), small({ transB: 'T' }), small({ betaZero: true }), small({ layouts: MIXED }),
    small({ stageC: false }), tiled({ bk: 8 }), small({ betaZero: true, stageC: false, layouts: MIXED }), tiled({ betaZero: true })];
  for (const dtype of DTYPES) {
    OPS.forEach(([transA, transB], o) => {
      const layouts = [DENSE, LOOSE, MIXED][(o + (dtype === 'float64' ? 0 : 1)) % 3]!;
      for (const d of [0, 1]) {
        const l = [DENSE, LOOSE, MIXED][(o + d) % 3]!;
        out.push(small({ dtype, transA, transB, m: 2, n: 2, k: 2, tbc: 64, betaZero: o % 2 === 0, layouts: l }));
        out.push(small({ dtype, transA, transB, m: 7, n: 5, k: 3, tbc: 7, stageC: o % 2 === 1, layouts: l }));
      }
      out.push(small({ dtype, transA, transB, m: 2, n: 2, k: 2, tbc: 64, betaZero: o % 2 === 0, layouts }));
      out.push(tiled({ dtype, transA, transB, betaZero: o % 2 === 1, layouts: o === 3 ? { a: pointer, b: pointer, c: pointer } : LOOSE }));
    });
    out.push(small({ dtype, m: 16, n: 16, k: 16, tbc: 2, rn: 2, stageC: false }));
    out.push(small({ dtype, transA: 'T', m: 2, n: 2, k: 2, tbc: 128, threads: 128, betaZero: false }));
    out.push(small({ dtype, transB: 'T', m: 4, n: 4, k: 4, tbc: 60, threads: 96, stageC: true, betaZero: true }));
    out.push(small({ dtype, transB: 'T', m: 31, n: 31, k: 29, tbc: 1, rn: 8, stageC: false, betaZero: true }));
    out.push(small({ dtype, transA: 'T', transB: 'T', m: 32, n: 32, k: 32, tbc: 1, rn: 8, stageC: false, layouts: LOOSE }));
    out.push(tiled({ dtype, bm: 32, bn: 32, tm: 4, tn: 4 }));
    if (dtype === 'float64') {
      OPS.forEach(([transA, transB], o) => {
        out.push({ ...tiled({ transA, transB, betaZero: o % 2 === 0, layouts: o === 2 ? MIXED_PLAIN : LOOSE }), variant: 'mma', bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 1 + o });
        for (const betaZero of [false, true]) for (const n of [256, 128, 64, 32]) {
          out.push(planGemm(H100, problem({ transA, transB, m: n, n, k: n, betaZero }), { variant: 'mma' }));
        }
      });
      out.push({ ...tiled({ transA: 'T', transB: 'T' }), variant: 'mma', bm: 32, bn: 32, bk: 32, wm: 1, wn: 1, stages: 1 });
      out.push({ ...tiled({}), variant: 'mma', bm: 128, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 });
    }
    out.push(dtype === 'float64' ? tiled({ dtype, bm: 128, bn: 64, tm: 8, tn: 4 }) : tiled({ dtype, bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 }));
    if (dtype === 'float32') {
      OPS.forEach(([transA, transB], o) => {
        out.push(tiled({ dtype, transA, transB, bm: 128, bn: 128, bk: 16, tm: 8, tn: 8, betaZero: o % 2 === 0 }));
        for (const n of [64, 128, 256]) out.push(planGemm(H100, problem({ dtype, transA, transB, m: n, n, k: n, betaZero: o % 2 === 1 })));
      });
    }
    for (const conjA of [false, true]) for (const conjB of [false, true]) OPS.forEach(([transA, transB], o) => {
      if ((conjA && transA === 'N') || (conjB && transB === 'N')) return;
      for (const n of [16, 64]) out.push(planGemm(H100, problem({ dtype, transA, transB, m: n, n, k: n, betaZero: o % 2 === 0, complex: { conjA, conjB } })));
    });
  }
  // The planner over the test's shape grid, every layout set.
  for (const info of DEVICES) for (const dtype of DTYPES) for (let n = 1; n <= 40; n++) for (const [m, k] of [[n, n], [Math.max(1, n - 3), n + 1], [n, 1]] as const) {
    for (const layouts of [undefined, LOOSE, MIXED, MIXED_PLAIN]) for (const batchKind of ['strided', 'list'] as const) {
      out.push(planGemm(info, problem({ dtype, m, n, k, layouts, batchKind })));
    }
  }
  for (const dtype of DTYPES) for (const n of [64, 100, 128, 200, 256, 1000]) out.push(planGemm(H100, problem({ dtype, m: n, n, k: n, count: 1000 }), { variant: 'tiled' }));
  return out;
}

function gemmDirect(): void {
  for (const p of gemmTestParams()) record(gemmSource(p));
  // The generators themselves (gemmSource dispatches to them; the same text either way).
  record(generateSmallGemm(small({})));
  record(generateTiledGemm(tiled({})));
  record(generateMmaGemm({ ...tiled({}), variant: 'mma', bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 }));
  // The TMA design (taken where forced or a card's route holds the product): the sm_90 table's
  // bands, the GPU test's configurations and the sweep's variants, every op pair, beta zero and not.
  const tmaConfigs: TmaConfig[] = [
    ...(tuningFor('sm_90', 'gemm').tma ?? []).map((band) => band.config),
    { bm: 128, bn: 128, wm: 2, wn: 4, stages: 3 }, { bm: 64, bn: 64, wm: 2, wn: 2, stages: 6, tileGroup: 3 },
    { bm: 128, bn: 64, wm: 2, wn: 2, stages: 4, producerWarp: true }, { bm: 64, bn: 128, wm: 2, wn: 2, stages: 2 },
    ...TMA_SWEEP_VARIANTS.map((v) => v.config),
  ];
  for (const config of tmaConfigs) for (const [transA, transB] of OPS) for (const betaZero of [false, true]) {
    record(generateTmaGemm({ variant: 'tma', dtype: 'float64', transA, transB, betaZero, layouts: LOOSE, ...config }));
  }
}

// ---------------------------------------------------------------------------------------------
// TSM2: the launcher over the benchmark's and the tests' shapes; the sweep grids; the test's sets.

function tsm2Problem(over: Partial<Tsm2Problem>): Tsm2Problem {
  return { dtype: 'float64', transA: 'N', transB: 'N', m: 20480, n: 8, k: 20480, betaZero: true, maxVecA: 4, maxVecC: 4, ...over };
}
const BW = 3.0e12;

function tsm2ThroughLauncher(): void {
  for (const info of [H100, A100]) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const [transA, transB] of OPS) {
      const shapes: [number, number, number][] = [];
      for (const m of [10240, 20480, 30720]) for (const n of [1, 2, 3, 4, 7, 8, 16, 32]) shapes.push([m, n, m]);
      for (const m of [1e4, 1e5, 1e6, 1e7]) for (const kn of [8, 16]) shapes.push([m, kn, kn]);
      shapes.push([1e6, 33, 5], [1e6, 5, 33], [20480, 4, 100]);
      for (const [m, n, k] of shapes) for (const beta of [0, 1]) for (const alpha of [1, 0]) {
        const a = strided(fakeArray(dtype, m * k), { rows: transA === 'N' ? m : k, cols: transA === 'N' ? k : m, count: 1 });
        const b = strided(fakeArray(dtype, k * n), { rows: transB === 'N' ? k : n, cols: transB === 'N' ? n : k, count: 1 });
        const c = strided(fakeArray(dtype, m * n), { rows: m, cols: n, count: 1 });
        if (!tsm2Cuda(dev, { transA, transB, alpha, beta, a, b, c }, { bandwidth: BW })) gemmCuda(dev, { transA, transB, alpha, beta, a, b, c });
      }
    }
  }
}

function tsm2Direct(): void {
  const R: Tsm2rParams = { dtype: 'float64', transA: 'N', transB: 'N', n: 8, t1: 128, t2: 8, t3: 8, tileK: 32, vec: 2, split: 4, prefetch: 0, stages: 0, engine: 'fma' };
  const L: Tsm2lParams = { dtype: 'float32', transA: 'N', transB: 'T', k: 16, n: 16, t1: 128, vec: 2, variant: 'opt2' };
  record(generateTsm2r(R));
  record(generateTsm2l(L));
  const variantsR: Partial<Tsm2rParams>[] = [{ dtype: 'float32' }, { transA: 'T', vec: 1 }, { transB: 'T' }, { n: 9, t2: 8 },
    { t1: 256 }, { t2: 4 }, { t3: 4 }, { tileK: 64 }, { vec: 1 }, { split: 8 }, { prefetch: 1 }, { stages: 3 }, { stages: 2, t3: 16, engine: 'dmma' }, { split: 1 }];
  for (const v of variantsR) record(generateTsm2r({ ...R, ...v }));
  const variantsL: Partial<Tsm2lParams>[] = [{ dtype: 'float64' }, { transA: 'T', vec: 1 }, { transB: 'N' }, { k: 15 }, { n: 3 }, { t1: 256 }, { vec: 1 }, { variant: 'opt1' }];
  for (const v of variantsL) record(generateTsm2l({ ...L, ...v }));
  for (const dtype of DTYPES) {
    record(generateScale({ dtype }));
    for (const n of [1, 4, 16, 32]) record(generateTsm2r(planTsm2r(H100, BW, tsm2Problem({ dtype, n, m: 10240, k: 10240 })).params));
    record(generateTsm2r(planTsm2r(H100, BW, tsm2Problem({ dtype, n: 16 }), { prefetch: 2, tileK: 64 }).params));
    for (const n of [8, 32]) record(generateTsm2r(planTsm2r(H100, BW, tsm2Problem({ dtype, n }), { stages: 4, vec: 2 }).params));
    if (dtype === 'float64') for (const n of [16, 32]) record(generateTsm2r(planTsm2r(H100, BW, tsm2Problem({ dtype, n }), { stages: 3, engine: 'dmma' }).params));
    for (const [transA, transB] of OPS) record(generateTsm2r(planTsm2r(H100, BW, tsm2Problem({ dtype, transA, transB, n: 7 })).params));
    for (const kn of [8, 16]) for (const variant of ['opt1', 'opt2'] as const) {
      record(generateTsm2l(planTsm2l(H100, BW, tsm2Problem({ dtype, m: 1e7, n: kn, k: kn }), { variant }).params));
    }
    record(generateTsm2l(planTsm2l(H100, BW, tsm2Problem({ dtype, transA: 'T', transB: 'T', m: 1e6, n: 33, k: 5 })).params));
  }
  // The sweep's grids over the benchmark's cases.
  for (const c of defaultTsm2Cases()) {
    const pr = tsm2Problem({ dtype: c.dtype, m: c.m, n: c.n, k: c.k });
    // A grid point the planner refuses for a case is skipped by the sweep too.
    if (c.op === 'tsm2r') for (const o of tsm2rGrid(c)) ifPlanned(() => generateTsm2r(planTsm2r(H100, BW, pr, o).params));
    else for (const o of tsm2lGrid(c)) ifPlanned(() => generateTsm2l(planTsm2l(H100, BW, pr, o).params));
  }
}

// ---------------------------------------------------------------------------------------------
// Factorisations and solves: the launchers over sizes and forms (auto and forced variants);
// then the test's parameter sets.

const FACTOR_SIZES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 40, 48, 63, 64, 65, 80, 96, 97, 100, 127, 128, 129, 160, 200, 256, 300, 384, 511, 512, 600, 768, 1024];

function factorsThroughLaunchers(): void {
  for (const info of [H100, A100]) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const form of FORMS) for (const n of FACTOR_SIZES) {
      const count = form === 'dense' ? 1000 : 4;
      const info32 = fakeArray('int32', count);
      const ipiv = fakeArray('int32', count * Math.max(1, n));
      for (const uplo of UPLOS) {
        const forced: PotrfForce['variant'][] = [null, 'panel', ...(n <= 32 ? ['small' as const] : []), ...(n <= REGISTER_DESIGN_MAX ? ['register' as const] : [])];
        for (const variant of forced) for (const [widest, loop] of [[16, false], [8, false], [16, true]] as const) {
          if (variant !== 'panel' && (widest !== 16 || loop)) continue;
          potrfForced(dev, { uplo, a: batch(dtype, n, n, count, form), info: info32 }, { variant, widest, loop });
        }
        for (const nrhs of [0, 1, 2, 3, 4, 5, 16, 40]) {
          potrsCuda(dev, { uplo, a: batch(dtype, n, n, count, form), b: batch(dtype, n, nrhs, count, form), info: info32 });
          posvCuda(dev, { uplo, a: batch(dtype, n, n, count, form), b: batch(dtype, n, nrhs, count, form), info: info32 });
        }
      }
      for (const cols of new Set([n, Math.max(0, n - 1), n + 1, Math.ceil(n / 2)])) {
        const forced: GetrfForce[] = [null, 'blocked', ...(Math.max(n, cols) <= 32 ? ['small' as const] : []), ...(Math.max(n, cols) <= REGISTER_DESIGN_MAX ? ['register' as const] : [])];
        for (const force of forced) getrfForced(dev, { a: batch(dtype, n, cols, count, form), ipiv, pivotStride: Math.max(1, Math.min(n, cols)), info: info32 }, force);
      }
      for (const nrhs of [0, 1, 2, 3, 4, 5, 16, 40]) {
        for (const trans of ['N', 'T'] as const) {
          getrsCuda(dev, { trans, a: batch(dtype, n, n, count, form), ipiv, pivotStride: Math.max(1, n), b: batch(dtype, n, nrhs, count, form), info: info32 });
        }
        gesvCuda(dev, { a: batch(dtype, n, n, count, form), ipiv, pivotStride: Math.max(1, n), b: batch(dtype, n, nrhs, count, form), info: info32 });
      }
    }
  }
}

/** test/cuda/factor-generate.test.ts. */
function factorsDirect(): void {
  const base = { dtype: 'float64', n: 8, uplo: 'lower', kind: 'strided', warps: 4 } as const;
  for (const s of [potrfSmall(base), potrfSmall({ ...base, dtype: 'float32' }), potrfSmall({ ...base, n: 9 }),
    potrfSmall({ ...base, uplo: 'upper' }), potrfSmall({ ...base, kind: 'pointer' }), potrfSmall({ ...base, warps: 2 }),
    getrfSmallSource({ dtype: 'float64', rows: 8, cols: 8, kind: 'strided', warps: 4 }),
    getrfSmallSource({ dtype: 'float64', rows: 8, cols: 7, kind: 'strided', warps: 4 }),
    potrfPanelSource({ dtype: 'float64', uplo: 'lower', kind: 'strided', ib: 8, kb: 16 }),
    potrfPanelSource({ dtype: 'float64', uplo: 'lower', kind: 'strided', ib: 4, kb: 16 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 64, kind: 'strided', warps: 8 }),
    getrfRegisterSource({ dtype: 'float32', rows: 64, cols: 64, kind: 'strided', warps: 8 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 65, kind: 'strided', warps: 8 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 64, kind: 'pointer', warps: 8 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 64, kind: 'strided', warps: 4 }),
    potrfRegisterSource({ dtype: 'float64', n: 64, uplo: 'lower', kind: 'strided', warps: 8 }),
    potrfRegisterSource({ dtype: 'float64', n: 64, uplo: 'upper', kind: 'strided', warps: 8 }),
    potrfRegisterSource({ dtype: 'float64', n: 65, uplo: 'lower', kind: 'strided', warps: 8 }),
    potrfRegisterSource({ dtype: 'float32', n: 64, uplo: 'lower', kind: 'pointer', warps: 16 })]) record(s);
  for (const dtype of DTYPES) {
    for (const n of [5, 16, 32]) {
      for (const uplo of UPLOS) record(potrfSmall({ dtype, n, uplo, kind: 'strided', warps: 4 }));
      record(getrfSmallSource({ dtype, rows: n, cols: n, kind: 'pointer', warps: 4 }));
    }
    record(posvSmallSource({ dtype, n: 32, uplo: 'lower', kindA: 'strided', kindB: 'strided', warps: 4 }));
    record(gesvSmallSource({ dtype, n: 32, kindA: 'strided', kindB: 'strided', warps: 4 }));
    record(potrfPanelSource({ dtype, uplo: 'lower', kind: 'strided', ib: 8, kb: 16 }));
    for (const n of [1, 33, 64, 65, 100, REGISTER_DESIGN_MAX]) {
      const warps = registerWarps(n);
      record(getrfRegisterSource({ dtype, rows: n, cols: n, kind: n === 65 ? 'pointer' : 'strided', warps }));
      for (const uplo of UPLOS) record(potrfRegisterSource({ dtype, n, uplo, kind: 'strided', warps }));
    }
    for (const [rows, cols] of [[128, 33], [33, 128], [127, 64]] as const) record(getrfRegisterSource({ dtype, rows, cols, kind: 'strided', warps: registerWarps(cols) }));
    record(potrfPanelSource({ dtype, uplo: 'upper', kind: 'pointer', ib: 8, kb: 16 }));
    record(getrfPanelSource({ dtype, kind: 'strided', ib: 16 }));
    record(getrfUpdateSource({ dtype, kind: 'pointer', ib: 16 }));
    // The recursive LU's leaves at every panel height the table gives up to 8192 rows (the launchers
    // above reach n <= 1024), and the tests' parameter sets (factor-recursion, getrf-host-emulation).
    const recursion = tuningFor('sm_90', 'getrf').recursion;
    for (let m = 1; m <= 8192; m += 31) record(getrfTallSource({ dtype, kind: 'strided', ...tallShape(dtype, m, recursion) }));
    for (const kind of ['strided', 'pointer'] as const) record(getrfLaswpSource({ dtype, kind }));
    // The blocked large-path driver's row interchanges (getrf-blocked tests compile these).
    for (const kind of ['strided', 'pointer'] as const) record(getrfSwapsSource({ dtype, kind }));
    // Its wide leaves at every panel height (the table's width, 64, and 32).
    for (let m = 1; m <= 8192; m += 31) for (const width of [64, 32]) record(getrfWideSource({ dtype, kind: 'strided', width, ...tallShape(dtype, m, recursion) }));
    // The spread leaf's forced variants (off in the table: the cluster form's pushing
    // exchanges and the fused search; the probes and GPU tests force them) at its production shapes.
    for (const rowsPerBlock of [64, 128, 256, 512]) {
      const spread = { dtype, width: 64, rowsPerBlock, threads: 512, maxBlocks: 32, cluster: 16 } as const;
      for (const exchange of ['pull', 'push', 'signal'] as const) for (const fusedSearch of [false, true]) record(getrfSpreadSource({ ...spread, exchange, fusedSearch }));
      record(getrfSpreadSource({ ...spread, threads: 256, cluster: 0, fusedSearch: true }));
    }
  }
  const tall = { dtype: 'float64', kind: 'strided', nb: 16, threads: 512, rowsPerThread: 1 } as const;
  for (const p of [tall, { ...tall, dtype: 'float32' as const }, { ...tall, kind: 'pointer' as const }, { ...tall, nb: 8 },
    { ...tall, threads: 1024, rowsPerThread: 4, nb: 4 }, { ...tall, rowsPerThread: 2 }, { ...tall, threads: 128, rowsPerThread: 3 },
    { ...tall, nb: 8, threads: 64, rowsPerThread: 4 }, { dtype: 'float32', kind: 'strided', nb: 32, threads: 128, rowsPerThread: 3 } as const,
    { ...tall, threads: 64 }]) record(getrfTallSource(p));
  const emulated = { maxThreads: 64, valueRegisters: 40, widest: { float64: 16, float32: 32 }, minN: { float64: 0, float32: 0 }, minNFew: { float64: 0, float32: 0 } };
  for (const dtype of DTYPES) for (let m = 1; m <= 150; m++) record(getrfTallSource({ dtype, kind: 'strided', ...tallShape(dtype, m, emulated) }));
  for (const dtype of DTYPES) {
    for (const variant of ['chol-lower', 'chol-upper', 'lu-N', 'lu-T'] as const) record(substituteSource({ dtype, variant, kindA: 'strided', kindB: 'pointer' }));
  }
}

// ---------------------------------------------------------------------------------------------
// Triangular solve: the launcher over variants, sizes, widths and forms (its GEMM updates
// included); then the test's parameter sets.

const TRSM_VARIANTS = (['left', 'right'] as const).flatMap((side) => UPLOS.flatMap((uplo) =>
  (['N', 'T'] as const).flatMap((transA) => (['nonunit', 'unit'] as const).map((diag) => ({ side, uplo, transA, diag })))));

function trsmThroughLauncher(): void {
  for (const info of [H100, A100]) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const form of ['dense', 'padded', 'list', 'variable'] as const) for (const t of [0, 1, 5, 33, 64, 65, 100, 128, 200, 300, 512]) {
      for (const v of TRSM_VARIANTS) for (const w of new Set([1, 3, 40, t])) for (const alpha of [1, 0]) {
        const [m, n] = v.side === 'left' ? [t, w] : [w, t];
        trsmCuda(dev, { ...v, alpha, a: batch(dtype, t, t, 4, form), b: batch(dtype, m, n, 4, form) });
        trmmCuda(dev, { ...v, alpha, a: batch(dtype, t, t, 4, form), b: batch(dtype, m, n, 4, form) });
      }
    }
  }
}

/** test/cuda/trsm-generate.test.ts, trmm-register-leaf-generate.test.ts (the register leaf at its four compiled orders) and the pipelined kernel's orders (side left, two stages). */
function trsmDirect(): void {
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const) {
    for (const v of TRSM_VARIANTS) for (const op of ['trsm', 'trmm'] as const) record(trsmLeafSource({ op, dtype, kind, ...v }));
    for (const v of TRSM_VARIANTS) for (const order of [8, 16, 24, 32]) record(trmmRegisterLeafSource({ dtype, kind, ...v, order }));
    record(trsmZeroSource({ dtype, kind }));
    for (const v of TRSM_VARIANTS) if (v.side === 'left') for (const rhs of [1, 2, 4, 8, 16]) record(trsmChainSource({ dtype, kind, uplo: v.uplo, transA: v.transA, diag: v.diag, rhs }));
    for (const v of TRSM_VARIANTS) if (v.side === 'left') for (const order of [8, 16, 24, 32, 48, 64, 96, 128]) record(trmmPipelinedSource({ dtype, kind, ...v, order, stages: 2 }));
  }
}

// ---------------------------------------------------------------------------------------------
// syrk and lauum: the launchers over variants, sizes and forms (their GEMM, syrk and trmm steps
// included); then the tests' parameter sets.

function syrkLauumThroughLaunchers(): void {
  for (const info of [H100, A100]) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const form of FORMS) for (const n of [0, 1, 5, 33, 64, 65, 100, 128, 200, 300, 512]) {
      for (const uplo of UPLOS) {
        for (const trans of ['N', 'T'] as const) for (const k of new Set([1, 40, n])) for (const [alpha, beta] of [[1, 0], [1, 1], [0, 0.5]] as const) {
          const [r, c] = trans === 'N' ? [n, k] : [k, n];
          syrkCuda(dev, { uplo, trans, alpha, beta, a: batch(dtype, r, c, 4, form), c: batch(dtype, n, n, 4, form) });
        }
        lauumCuda(dev, { uplo, a: batch(dtype, n, n, 4, form), info: fakeArray('int32', 4) });
      }
    }
  }
}

/** test/cuda/syrk-generate.test.ts and lauum-generate.test.ts, and forced chunks. */
function syrkLauumDirect(): void {
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const) for (const uplo of UPLOS) {
    for (const trans of ['N', 'T'] as const) for (const tile of [1, 2, 4, 8, 16, 32, 64]) for (const chunk of [8, 16, 32, 64]) {
      record(syrkLeafSource({ dtype, uplo, trans, kind, ...leafTile(tile), chunk }));
    }
    record(syrkLeafSource({ dtype, uplo, trans: 'N', kind, tile: 64, reg: 2, chunk: 32 }));
    record(lauumLeafSource({ dtype, uplo, kind }));
    // The tile design: the tables' shapes (off by default, so forced), the tests' forced shapes.
    for (const trans of ['N', 'T'] as const) {
      const shapes = [...tuningFor('sm_90', 'syrk').tiles[dtype].filter((b): b is SyrkTilesBand => b.off !== true), { tile: 64, reg: 4, chunk: 16, minBlocks: 0 }, { tile: 16, reg: 1, chunk: 16, minBlocks: 0 }];
      for (const { tile, reg, chunk, minBlocks } of shapes) record(syrkTilesSource({ dtype, uplo, trans, kind, tile, reg, chunk, minBlocks }));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Triangular and SPD inverses: the launchers over variants, sizes and forms (the fake device's
// info reads back empty, so past the scan only diag 'unit' reaches the recursion and its trmm);
// then the tests' parameter sets.

function inversesThroughLaunchers(): void {
  for (const info of [H100, A100]) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const form of FORMS) for (const n of [0, 1, 2, 3, 5, 8, 9, 17, 32, 33, 47, 64, 100, 128, 200, 300, 512]) {
      for (const uplo of UPLOS) {
        for (const diag of ['nonunit', 'unit'] as const) trtriCuda(dev, { uplo, diag, a: batch(dtype, n, n, 4, form), info: fakeArray('int32', 4) });
        for (const launcher of [potiCuda, potriCuda]) launcher(dev, { uplo, a: batch(dtype, n, n, 4, form), info: fakeArray('int32', 4) });
      }
    }
  }
}

/** test/cuda/trtri-generate.test.ts and test/cuda/poti-generate.test.ts. */
function inversesDirect(): void {
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const) {
    record(trtriScanSource({ dtype, kind }));
    for (const nb of LEAF_SIZES) for (const uplo of UPLOS) {
      for (const diag of ['nonunit', 'unit'] as const) record(trtriLeafSource({ dtype, uplo, diag, kind, nb }));
      for (const stage of ['poti', 'potri'] as const) record(potiFusedSource({ dtype, uplo, kind, nb, stage }));
    }
  }
}

// Jacobi (syev, gesvd): the launchers over sizes, jobs and forms; then the test's parameter sets.

function jacobiThroughLaunchers(): void {
  const dev = fakeDevice(H100);
  const ints = fakeArray('int32', 4);
  for (const dtype of DTYPES) for (const form of ['dense', 'padded', 'list'] as const) {
    for (let n = 0; n <= 32; n++) for (const uplo of UPLOS) for (const jobz of ['values', 'vectors'] as const)
      for (const design of ['thread', 'rows', 'warp'] as const) {
        if (design === 'thread' && n > THREAD_MAX) continue;
        syevCuda(dev, { jobz, uplo, a: batch(dtype, n, n, 4, form), w: batch(dtype, n, 1, 4, form), info: ints }, { force: { design } });
      }
    for (const [m, n] of [[1, 1], [2, 2], [3, 3], [4, 1], [1, 4], [5, 3], [3, 5], [6, 4], [4, 6], [6, 9], [9, 6], [12, 4], [7, 5], [5, 32], [8, 8], [13, 7], [7, 13], [16, 16], [32, 5], [31, 31], [32, 32]] as const)
      for (const [wantU, wantVt] of [[true, true], [false, false], [true, false], [false, true]] as const) {
        const k = Math.min(m, n);
        gesvdCuda(dev, {
          a: batch(dtype, m, n, 4, form), s: batch(dtype, k, 1, 4, form),
          u: wantU ? batch(dtype, m, k, 4, form) : undefined, vt: wantVt ? batch(dtype, k, n, 4, form) : undefined, info: ints,
        });
      }
    // The gesvd rows design, forced (test/gpu/gesvd-rows.test.ts's shapes and jobs).
    for (const [m, n] of [[1, 1], [2, 2], [5, 3], [3, 5], [8, 8], [9, 9], [12, 12], [16, 16], [17, 17], [24, 24], [31, 31], [32, 32], [32, 9], [9, 32],
      [20, 13], [13, 20], [32, 31], [31, 32], [17, 2], [2, 17], [12, 31], [31, 12], [24, 10], [10, 24], [16, 11], [17, 11], [10, 24], [9, 14]] as const)
      for (const [wantU, wantVt] of [[true, true], [false, false], [true, false], [false, true]] as const) {
        const k = Math.min(m, n);
        gesvdCuda(dev, {
          a: batch(dtype, m, n, 4, form), s: batch(dtype, k, 1, 4, form),
          u: wantU ? batch(dtype, m, k, 4, form) : undefined, vt: wantVt ? batch(dtype, k, n, 4, form) : undefined, info: ints,
        }, { force: { design: 'rows' } });
      }
    // The block designs (n = 33 ... 512), the GPU test's sizes and shapes.
    for (const n of [33, 40, 41, 47, 64, 100, 128, 256, 512]) for (const jobz of ['values', 'vectors'] as const)
      syevCuda(dev, { jobz, uplo: n % 2 === 0 ? 'lower' : 'upper', a: batch(dtype, n, n, 4, form), w: batch(dtype, n, 1, 4, form), info: ints });
    for (const [m, n] of [[33, 33], [40, 40], [47, 47], [64, 64], [100, 100], [128, 128], [256, 256], [512, 512], [100, 40], [40, 100], [64, 33], [33, 64], [300, 20], [20, 300], [70, 45], [45, 70], [90, 34]] as const)
      for (const [wantU, wantVt] of [[true, true], [false, false], [true, false], [false, true]] as const) {
        const k = Math.min(m, n);
        gesvdCuda(dev, {
          a: batch(dtype, m, n, 4, form), s: batch(dtype, k, 1, 4, form),
          u: wantU ? batch(dtype, m, k, 4, form) : undefined, vt: wantVt ? batch(dtype, k, n, 4, form) : undefined, info: ints,
        });
      }
  }
}

/** test/cuda/jacobi-generate.test.ts and the host emulation test. */
function jacobiDirect(): void {
  for (const dtype of DTYPES) for (let n = 1; n <= 32; n++) {
    const p = planSyev({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided' });
    for (const v of [p, { ...p, uplo: 'upper' as const }, { ...p, vectors: false }, { ...p, kind: 'pointer' as const }, { ...p, maxSweeps: 5 }]) record(syevWarpSource(v));
    if (p.threads >= 16) record(syevWarpSource({ ...p, threads: 16 }));
    if (p.perBlock % 2 === 0) record(syevWarpSource({ ...p, perBlock: p.perBlock / 2 }));
    for (const m of [1, n, 32]) for (const [a, b] of [[m, n], [n, m]]) {
      const g = planGesvd({ dtype, m: a!, n: b!, wantU: true, wantVt: true, kind: 'strided' });
      for (const v of [g, { ...g, wantU: false }, { ...g, wantVt: false }, { ...g, kind: 'pointer' as const }]) record(gesvdWarpSource(v));
    }
  }
  // The gesvd rows design's generator test and host emulation (test/cuda/gesvd-rows-*.test.ts).
  const rowsBase = { dtype: 'float64', m: 16, n: 16, wantU: true, wantVt: true, kind: 'strided', maxSweeps: 30 } as const;
  for (const v of [rowsBase, { ...rowsBase, m: 15 }, { ...rowsBase, n: 12 }, { ...rowsBase, m: 12 }, { ...rowsBase, dtype: 'float32' as const },
    { ...rowsBase, wantU: false }, { ...rowsBase, wantVt: false }, { ...rowsBase, wantU: false, wantVt: false }, { ...rowsBase, kind: 'pointer' as const },
    { ...rowsBase, maxSweeps: 5 }, { ...rowsBase, m: 32, n: 32 }, { ...rowsBase, m: 32, n: 32, wantU: false, wantVt: false }, { ...rowsBase, m: 5, n: 2 },
    { ...rowsBase, m: 20, n: 9 }, { ...rowsBase, m: 9, n: 20 }]) record(gesvdRowsSource(v));
  for (const dtype of DTYPES) for (const [m, n] of [[9, 9], [16, 16], [17, 17], [24, 24], [32, 32], [32, 9], [9, 32], [31, 17]] as const)
    record(gesvdRowsSource({ ...rowsBase, dtype, m, n }));
  for (const [dtype, m, n, wantU, wantVt] of [['float64', 9, 9, true, true], ['float64', 17, 10, true, true], ['float64', 12, 31, true, true],
    ['float64', 32, 32, true, true], ['float64', 24, 24, true, false], ['float64', 16, 16, false, false], ['float32', 31, 31, true, true],
    ['float32', 10, 17, true, true], ['float32', 32, 20, false, true], ['float32', 12, 12, false, false], ['float32', 16, 16, true, true]] as const)
    record(gesvdRowsSource({ dtype, m, n, wantU, wantVt, kind: 'strided', maxSweeps: MAX_SWEEPS }));
  // The rows design's forced variants (test/cuda/jacobi-generate.test.ts, the host emulation, test/gpu/syev-rows.test.ts,
  // scripts/probe/syev-rows-occupancy.mjs): the tangent rotation and the __launch_bounds__ requests.
  for (const dtype of DTYPES) for (let n = 1; n <= 32; n++) for (const vectors of [true, false]) for (const uplo of UPLOS) {
    const base = { dtype, n, uplo, vectors, kind: 'strided', maxSweeps: 30 } as const;
    record(syevRowsSource({ ...base, angle: 'tangent' }));
    if (n >= 9) for (const minBlocks of [2, 3, 4, 5, 6, 8]) for (const angle of ['halfAngle', 'tangent'] as const) record(syevRowsSource({ ...base, angle, minBlocks }));
  }
  record(syevRowsSource({ dtype: 'float32', n: 9, uplo: 'upper', vectors: false, kind: 'pointer', maxSweeps: 30, angle: 'halfAngle', minBlocks: 8 }));
  const p = planSyev({ dtype: 'float32', n: 32, uplo: 'upper', vectors: false, kind: 'pointer' });
  record(syevWarpSource(p));
  record(gesvdWarpSource({ ...planGesvd({ dtype: 'float32', m: 5, n: 32, wantU: true, wantVt: true, kind: 'strided' }), kind: 'pointer' }));
  // The block designs' forced variants (test/cuda/jacobi-generate.test.ts, the host emulation, test/gpu/jacobi-block.test.ts).
  const shared = H100.sharedPerBlockOptin - 1024;
  for (const dtype of DTYPES) {
    for (const n of [12, 33, 35, 40, 41, 47, 63, 64, 100, 128, 512]) for (const vectors of [true, false]) for (const uplo of UPLOS)
      for (const force of [{}, { global: true }, { threads: 32 }, { threads: 64 }, { threads: 96 }, { threads: 128 }, { global: true, threads: 64 }, { global: true, threads: 96 }])
        record(syevBlockSource(planSyevBlock({ dtype, n, uplo, vectors, kind: 'strided', sharedLimit: shared }, { force })));
    for (const [m, n] of [[40, 33], [33, 64], [64, 64], [34, 40], [64, 35], [64, 40], [40, 64], [65, 40], [40, 100], [128, 128], [512, 512]] as const)
      for (const [wantU, wantVt] of [[true, true], [false, true], [true, false]] as const)
        for (const force of [{}, { global: true }, { threads: 32 }, { threads: 128 }, { threads: 256 }, { threads: 512 }, { global: true, threads: 32 }, { global: true, threads: 64 }, { global: true, threads: 128 }])
          for (const kind of ['strided', 'pointer'] as const)
            record(gesvdBlockSource(planGesvdBlock({ dtype, m, n, wantU, wantVt, kind, sharedLimit: shared }, { force })));
  }
}

// The tridiagonal syev: the router's syev route over sizes, jobs and forms; then the tests' parameter sets.

function tridiagThroughLaunchers(): void {
  const dev = fakeDevice(H100);
  const ints = fakeArray('int32', 4);
  for (const dtype of DTYPES) for (const form of ['dense', 'padded', 'list'] as const)
    for (const n of [33, 34, 35, 36, 37, 38, 39, 40, 41, 47, 48, 64, 72, 96, 100, 128, 160, 192, 256, 384, 512]) for (const jobz of ['values', 'vectors'] as const)
      for (const uplo of UPLOS) runRouted('syev', dev, { jobz, uplo, a: batch(dtype, n, n, 4, form), w: batch(dtype, n, 1, 4, form), info: ints });
}

/** test/cuda/tridiag-generate.test.ts, the host emulation and test/gpu/tridiag.test.ts's forced shapes. */
function tridiagDirect(): void {
  const shared = H100.sharedPerBlockOptin - 1024;
  const tuning = tuningFor('sm_90', 'tridiag');
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const)
    for (const n of [1, 2, 3, 5, 8, 12, 33, 34, 35, 36, 40, 47, 63, 64, 72, 100, 128, 160, 256, 512]) for (const vectors of [true, false]) for (const uplo of UPLOS)
      for (const force of [{}, { global: true }, { threads: 32 }, { threads: 64 }, { threads: 96 }, { threads: 128 }, { global: true, threads: 32 }, { global: true, threads: 64 }, { global: true, threads: 96 }]) {
        const p = planSyevTridiag({ dtype, n, uplo, vectors, kind, sharedLimit: shared }, tuning, { force });
        record(syevTridiagSource(p));
        if (n === 34 || n === 64) record(syevTridiagSource({ ...p, maxit: n === 34 ? 0 : 5 }));
      }
  for (const dtype of DTYPES) for (const n of [64, 100]) record(syevTridiagSource(planSyevTridiag({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: 48 * 1024 }, tuning)));
  // The one-kernel design forced where the split design now serves (scripts/probe/syev-split.mjs's first column).
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const) for (const n of [192, 384]) for (const uplo of UPLOS)
    record(syevTridiagSource(planSyevTridiag({ dtype, n, uplo, vectors: true, kind, sharedLimit: shared }, tuning)));
  // The split design (record, apply, finish): test/cuda/tridiag-split-host-emulation.test.ts, test/gpu/tridiag-split.test.ts, the probe's forced rows.
  const splitForces: TridiagForce[] = [{}, { applyRows: 8 }, { applyRows: 32 }, { cap: 400, applyRows: 8 }, { cap: 256 * 64, applyRows: 32 }, { cap: 200, threads: 32 },
    { cap: 256 }, { cap: 5000, applyRows: 32 }, { cap: 300, applyRows: 5, threads: 32 }, { cap: 128 * 128 * 8 }, { cap: 512 * 256 }, { threads: 32 }, { threads: 64, applyRows: 12 },
    { cap: 66, applyRows: 8 }, { cap: 141, applyRows: 16 }, { threads: 32, applyRows: 32 }, { threads: 32, cap: 2000 }, { cap: 72 }, { applyRows: 2 }, { applyUnroll: 1 }, { applyUnroll: 3, applyRows: 7 }];
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const)
    for (const n of [1, 2, 3, 5, 33, 34, 36, 40, 45, 47, 50, 64, 100, 128, 130, 200, 256, 384, 512]) for (const uplo of UPLOS)
      for (const force of splitForces) {
        let p;
        try {
          p = planSyevSplit({ dtype, n, uplo, vectors: true, kind, sharedLimit: shared }, tuning, { force: { ...force, split: true } });
        } catch {
          continue;   // a forced buffer below 2n
        }
        record(syevTridiagSource(p.record)); record(tridiagApplySource(p.apply)); record(syevTridiagSource(p.finish));
        if (n === 34 || n === 36) for (const maxit of [0, 1]) { record(syevTridiagSource({ ...p.record, maxit })); record(syevTridiagSource({ ...p.finish, maxit })); }
      }
}

// The per-thread QL syev: the router's syev route at n <= 8; then the tests' parameter sets.

function qlThreadThroughLaunchers(): void {
  const dev = fakeDevice(H100);
  const ints = fakeArray('int32', 4);
  for (const dtype of DTYPES) for (const form of ['dense', 'padded', 'list'] as const)
    for (let n = 1; n <= QL_THREAD_LIMIT; n++) for (const jobz of ['values', 'vectors'] as const)
      for (const uplo of UPLOS) runRouted('syev', dev, { jobz, uplo, a: batch(dtype, n, n, 4, form), w: batch(dtype, n, 1, 4, form), info: ints });
}

/** test/cuda/ql-thread-generate.test.ts, the host emulation test and the probe: the default arithmetic, and each arithmetic forced (float32 data in float64 too). */
function qlThreadDirect(): void {
  const tuning = tuningFor('sm_90', 'qlThread');
  for (const dtype of DTYPES) for (const arithmetic of [undefined, 'float64', dtype] as const) for (const kind of ['strided', 'pointer'] as const)
    for (let n = 1; n <= QL_THREAD_LIMIT; n++) for (const vectors of [true, false]) for (const uplo of UPLOS) {
      const p = planQlThread({ dtype, n, uplo, vectors, kind }, tuning, { force: { arithmetic } });
      record(qlThreadSource(p));
      if (n === 6) record(qlThreadSource({ ...p, maxit: 5 }));
      if ((n === 5 || n === 8) && vectors && uplo === 'lower' && kind === 'strided') for (const maxit of [0, 1]) record(qlThreadSource({ ...p, maxit }));
    }
}

// QR (geqrf, orgqr): the launchers over shapes, forms and devices; then the tests' parameter sets.

const QR_SHAPES: readonly (readonly [number, number])[] = [
  ...Array.from({ length: 33 }, (_, i) => [i + 1, i + 1] as const),
  [10, 1], [30, 3], [32, 2], [50, 5], [160, 16], [320, 32], [4, 1], [5, 3], [3, 5], [1, 7], [8, 31], [16, 33], [20, 100], [31, 32],
  [64, 64], [100, 100], [128, 128], [200, 50], [512, 32], [40, 120], [6, 4], [4, 6], [40, 30], [7, 5], [12, 9], [13, 7], [7, 13],
  [17, 32], [32, 3], [33, 50], [100, 10], [20, 12], [40, 40], [300, 300], [4, 2],
];

function qrThroughLaunchers(): void {
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    const ints = fakeArray('int32', 4);
    for (const dtype of DTYPES) for (const form of ['dense', 'padded', 'list'] as const) for (const [m, n] of QR_SHAPES) {
      const k = Math.min(m, n);
      // A tile beyond the device's shared memory is UNSUPPORTED (the registry's covers sends it to the CPU).
      if (!qrCovers(batch(dtype, m, n, 1, 'dense'), dev)) continue;
      // The planned design, and the shared kernel forced where its tile fits (the blocked driver's
      // default from 128 reflectors; the tests force both).
      const shared = qrFits({ op: 'geqrf', dtype, m, n, k, kind: 'strided', sharedLimit: info.sharedPerBlockOptin - 1024 });
      // The per-thread kernel forced staged or unstaged where it takes the shape (test/gpu/qr-thread.test.ts), and
      // geqrf's classic variant by its layout and staged (test/gpu/geqrf-tiny.test.ts).
      const thread: QrOptions[] = Math.max(m, n) <= 8 ? [
        { force: { design: 'thread', stage: true } }, { force: { design: 'thread', stage: false } },
        { force: { design: 'thread', threadVariant: 'classic' } }, { force: { design: 'thread', stage: true, threadVariant: 'classic' } },
      ] : [];
      for (const opts of [{}, ...(shared ? [{ force: { design: 'shared' } as const }] : []), ...thread]) {
        geqrfCuda(dev, { a: batch(dtype, m, n, 4, form), tau: batch(dtype, k, 1, 4, form), info: ints }, opts);
        if (m < n) continue;
        for (const kq of new Set([n, Math.floor(n / 2)])) orgqrCuda(dev, { a: batch(dtype, m, n, 4, form), tau: batch(dtype, kq, 1, 4, form) }, opts);
      }
    }
    // The blocked driver at the tests' and the benchmark's sizes, and forced with the tests' panels.
    for (const dtype of DTYPES) for (const form of ['dense', 'list'] as const) {
      const blocked: [number, number, QrOptions][] = [
        [256, 256, {}], [512, 512, {}], [500, 50, {}], [512, 48, {}], [480, 130, {}], [100, 300, {}], [48, 512, {}], [200, 512, {}], [129, 131, {}],
        [200, 200, {}], [200, 150, {}], [130, 130, {}],
        [40, 40, { force: { design: 'blocked', panel: 8, tailMax: 0 } }], [70, 45, { force: { design: 'blocked', panel: 16, tailMax: 20 } }],
        [33, 90, { force: { design: 'blocked', panel: 8, tailMax: 0 } }], [100, 100, { force: { design: 'blocked', panel: 32, tailMax: 0 } }],
        [256, 256, { force: { design: 'blocked', panel: 16 } }],
      ];
      for (const [m, n, opts] of blocked) {
        if (!qrCovers(batch(dtype, m, n, 1, 'dense'), dev)) continue;
        const k = Math.min(m, n);
        geqrfCuda(dev, { a: batch(dtype, m, n, 4, form), tau: batch(dtype, k, 1, 4, form), info: ints }, opts);
        if (m < n) continue;
        for (const kq of new Set([n, Math.floor(n / 2)])) orgqrCuda(dev, { a: batch(dtype, m, n, 4, form), tau: batch(dtype, kq, 1, 4, form) }, opts);
      }
    }
  }
}

/** test/cuda/qr-generate.test.ts and the host emulation test (forced shapes and the variants of the purity test). */
function qrDirect(): void {
  const SHARED = 227 * 1024;
  const source = (p: QrSharedParams): KernelSource => (p.op === 'geqrf' ? geqrfSharedSource(p) : orgqrSharedSource(p));
  const forced: [number, number, QrForce][] = [[12, 9, { rowLanes: 1 }], [12, 9, { threads: 32, rowLanes: 32 }], [20, 12, { scope: 'block', threads: 64 }]];
  for (const dtype of DTYPES) for (const [m, n, force] of forced) {
    record(source(planQr({ op: 'geqrf', dtype, m, n, k: Math.min(m, n), kind: 'strided', sharedLimit: SHARED }, { force }).params));
    for (const k of [n, Math.floor(n / 2)]) record(source(planQr({ op: 'orgqr', dtype, m, n, k, kind: 'strided', sharedLimit: SHARED }, { force }).params));
  }
  const p = planQr({ op: 'geqrf', dtype: 'float64', m: 12, n: 8, k: 8, kind: 'strided', sharedLimit: SHARED }).params;
  const variants: QrSharedParams[] = [
    p, { ...p, dtype: 'float32' }, { ...p, m: 13 }, { ...p, n: 7, k: 7 }, { ...p, kind: 'pointer' }, { ...p, threads: 32, rowLanes: 4, perBlock: 8 },
    { ...p, rowLanes: p.rowLanes * 2 }, { ...p, perBlock: p.perBlock * 2 }, { ...p, scope: 'block', threads: 64, perBlock: 1 },
    { ...p, op: 'orgqr' }, { ...p, op: 'orgqr', k: 5 },
  ];
  for (const v of variants) record(source(v));
  record(source({ ...planQr({ op: 'orgqr', dtype: 'float32', m: 13, n: 5, k: 3, kind: 'strided', sharedLimit: SHARED }).params, kind: 'pointer' }));
  // The per-thread kernel: test/cuda/qr-thread-generate.test.ts's variants and compile list.
  const threadSource = (t: QrThreadParams): KernelSource => (t.op === 'geqrf' ? geqrfThreadSource(t) : orgqrThreadSource(t));
  const thread = (op: 'geqrf' | 'orgqr', m: number, n: number, dtype: DType, dense: boolean, k = Math.min(m, n)): QrThreadParams =>
    planQrThread({ op, dtype, m, n, k, kind: 'strided', denseA: dense, denseT: dense }).params;
  const t = thread('geqrf', 6, 4, 'float64', true);
  const unstaged = { stage: false, denseA: false, denseT: false };
  for (const v of [
    t, { ...t, dtype: 'float32' as const }, { ...t, m: 7 }, { ...t, n: 5, k: 5 }, { ...t, kind: 'pointer' as const, ...unstaged }, { ...t, blockThreads: 64 },
    { ...t, ...unstaged }, { ...t, denseA: false }, { ...t, denseT: false }, { ...t, op: 'orgqr' as const }, { ...t, op: 'orgqr' as const, k: 2 },
  ]) record(threadSource(v));
  for (const dtype of DTYPES) for (let n = 1; n <= 8; n++) for (const op of ['geqrf', 'orgqr'] as const) {
    record(threadSource(thread(op, n, n, dtype, true)));
    record(threadSource(thread(op, n, n, dtype, false)));
    record(threadSource({ ...thread(op, n, n, dtype, false), kind: 'pointer' }));
  }
  record(threadSource({ ...thread('geqrf', 4, 7, 'float32', false), kind: 'pointer' }));
  // common/wy.ts: test/cuda/qr-blocked.test.ts's and the host emulation's parameter sets.
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const) {
    record(lasetSource({ dtype, kind }));
    for (const nb of [4, 8, 16, 32]) for (const transT of [false, true]) record(wyFactorSource({ dtype, kind, nb, transT }));
  }
}

// ---------------------------------------------------------------------------------------------
// ormqr: the launcher over orders, reflector counts, vectors, sides, forms and devices (one kernel per
// dtype, side, trans and operand form: sizes are arguments); then test/cuda/ormqr-generate.test.ts's set.

function ormqrThroughLauncher(): void {
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const side of ['left', 'right'] as const) for (const trans of ['N', 'T'] as const)
      for (const form of ['dense', 'padded', 'list', 'variable'] as const) for (const [r, k, nvec] of [[1, 1, 1], [5, 3, 7], [32, 32, 32], [100, 100, 100], [40, 20, 300]] as const) {
        const [m, n] = side === 'left' ? [r, nvec] : [nvec, r];
        ormqrCuda(dev, { side, trans, a: batch(dtype, r, k, 4, form), tau: batch(dtype, k, 1, 4, form), c: batch(dtype, m, n, 4, form) });
        // The shared kernel forced where the blocked driver is the default (k >= 64).
        ormqrCuda(dev, { side, trans, a: batch(dtype, r, k, 4, form), tau: batch(dtype, k, 1, 4, form), c: batch(dtype, m, n, 4, form) }, { force: { design: 'shared' } });
      }
    // The blocked driver at the tests' sizes and forced panels.
    for (const dtype of DTYPES) for (const side of ['left', 'right'] as const) for (const trans of ['N', 'T'] as const)
      for (const form of ['dense', 'list'] as const) for (const [r, k, nvec, panel] of [[128, 128, 128, 0], [512, 512, 40, 0], [300, 77, 33, 0], [9, 9, 6, 4], [40, 33, 6, 8], [70, 70, 6, 32]] as const) {
        const [m, n] = side === 'left' ? [r, nvec] : [nvec, r];
        ormqrCuda(dev, { side, trans, a: batch(dtype, r, k, 4, form), tau: batch(dtype, k, 1, 4, form), c: batch(dtype, m, n, 4, form) },
          panel === 0 ? {} : { force: { design: 'blocked', panel } });
      }
  }
}

function ormqrDirect(): void {
  for (const dtype of DTYPES) for (const side of ['left', 'right'] as const) for (const trans of ['N', 'T'] as const)
    for (const kind of ['strided', 'pointer'] as const) record(ormqrBlockSource({ dtype, side, trans, kind }));
}

// tsqr: the launcher over n, m, count and devices (n is unrolled; m and count only change the
// grid); then the forced shapes of test/cuda/tsqr-host-emulation.test.ts and test/gpu/tsqr.test.ts.
function tsqrThroughLauncher(): void {
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (let n = 1; n <= 32; n++) for (const [m, count] of [[1e4, 4], [1e6, 1], [1e7, 1]] as const) {
      tsqrCuda(dev, {
        a: strided(fakeArray(dtype, m * n * count), { rows: m, cols: n, count }), r: strided(fakeArray(dtype, n * n * count), { rows: n, cols: n, count }),
        info: fakeArray('int32', count),
      });
    }
  }
}

function tsqrDirect(): void {
  const forced = [{ threads: 32 }, { threads: 64 }, { tile: 1, threads: 96 }, { reduceSlices: 2 }, { reduceSlices: 4 }] as const;
  for (const dtype of DTYPES) for (let n = 1; n <= 32; n++) for (const force of forced) {
    ifPlanned(() => generateRows(planTsqr({ dtype, m: 1e5, n, count: 1, smCount: 132 }, tuningFor('sm_90', 'tsqr'), force).gram));
  }
  for (const dtype of DTYPES) {
    for (let n = 1; n <= 32; n++) record(generateChol({ dtype, n }));
    for (const slices of [1, 2, 4, 8, 16, 32]) record(generateReduce({ dtype, slices }));
  }
}

// ---------------------------------------------------------------------------------------------
// gels: the launcher over tall, square and wide systems, forms and devices (its check, finish and
// transpose kernels, and the qr, ormqr and trsm kernels it reaches); then test/cuda/gels-generate.test.ts's set.

function gelsThroughLauncher(): void {
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    const ints = fakeArray('int32', 4);
    for (const dtype of DTYPES) for (const form of FORMS) for (const [m, n, nrhs] of [[1, 1, 1], [5, 3, 2], [3, 5, 2], [16, 16, 1], [40, 20, 7], [20, 40, 7], [100, 50, 1], [64, 128, 8]] as const) {
      const r = { a: batch(dtype, m, n, 4, form), b: batch(dtype, Math.max(m, n), nrhs, 4, form), info: ints };
      if (gelsCovers(r, dev)) gelsCuda(dev, r);
    }
  }
}

function gelsDirect(): void {
  const kinds = ['strided', 'pointer'] as const;
  for (const dtype of DTYPES) for (const tall of [true, false]) for (const b of kinds) {
    for (const factor of kinds) record(gelsCheckSource({ dtype, tall, factor, b }));
    record(gelsFinishSource({ dtype, tall, b }));
  }
  for (const dtype of DTYPES) for (const src of kinds) for (const dst of kinds) record(transposeSource({ dtype, src, dst }));
}

// ---------------------------------------------------------------------------------------------
// getri: the launcher over orders, forms and devices (its prepare and finish kernels, and the trtri
// and trsm kernels it reaches, 520 on trsm's inverted diagonal blocks); then test/cuda/getri-generate.test.ts's set.

function getriThroughLauncher(): void {
  for (const info of [H100, A100]) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) for (const form of FORMS) for (const n of [0, 1, 2, 3, 5, 8, 9, 17, 32, 33, 47, 64, 100, 128, 200, 256, 300, 512, 520]) {
      getriCuda(dev, { a: batch(dtype, n, n, 4, form), ipiv: fakeArray('int32', 4 * Math.max(1, n)), pivotStride: Math.max(1, n), info: fakeArray('int32', 4) });
    }
  }
}

function getriDirect(): void {
  for (const dtype of DTYPES) for (const kind of ['strided', 'pointer'] as const) {
    record(getriPrepareSource({ dtype, kind }));
    record(getriFinishSource({ dtype, kind }));
  }
}

// ---------------------------------------------------------------------------------------------
// The vendor routes' kernels around cuBLAS/cuSOLVER (cuda/vendor/kernels.ts): every variant.

function vendorDirect(): void {
  const kinds = ['strided', 'pointer'] as const;
  for (const dtype of DTYPES) {
    for (const uplo of UPLOS) for (const kind of kinds) {
      record(potrfScanSource(dtype, uplo, kind));
      record(potrfScanSource(dtype, uplo, kind, 'complex'));
      record(syevPackSource(dtype, uplo, kind));
      record(syevPackSource(dtype, uplo, kind, 'complex'));
    }
    for (const a of kinds) for (const w of kinds) {
      record(syevUnpackSource(dtype, a, w));
      record(syevUnpackSource(dtype, a, w, 'complex'));
    }
  }
  record(potrfInfoSource());
  record(getrfScatterSource());
  // The dense gesvd route's (cuda/vendor/kernels-dense.ts).
  for (const dtype of DTYPES) for (const kind of kinds) {
    for (const transpose of [false, true]) {
      record(densePackSource(dtype, kind, transpose));
      record(denseUnpackSource(dtype, kind, transpose));
    }
    record(gesvdValuesSource(dtype, kind));
  }
}

// ---------------------------------------------------------------------------------------------
// Variable-size batches by size class: every class (orders 0 .. 600, the last beyond the classes)
// through the launchers (gemm, potrf, trsm, potrs, posv, getrf, getrs, gesv, syrk), on every device.

function vbatchedThroughLaunchers(): void {
  const orders = [0, 5, 12, 20, 30, 40, 60, 100, 200, 400, 600];
  const members = (dtype: DType, shape: (n: number) => readonly [number, number]): Batch<DeviceArray> =>
    variable(orders.map((n) => { const [r, c] = shape(n); return { data: fakeArray(dtype, Math.max(1, r * c)), rows: r, cols: c }; }));
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) {
      for (const [transA, transB] of OPS) for (const beta of [0, 1]) {
        gemmVbatchedCuda(dev, { transA, transB, alpha: 1, beta, a: members(dtype, (n) => [n, n]), b: members(dtype, (n) => [n, n]), c: members(dtype, (n) => [n, n]) });
      }
      // The team design of the classes up to 32, reachable through a table's `vbatchedSmall`: its NN kernels.
      const team = { design: 'team', team: 64, tbc: 4 } as const;
      const teamTuning = { ...tuningFor(info.arch, 'gemm'), vbatchedSmall: { [dtype]: { 8: team, 16: team, 24: team, 32: team } } };
      gemmVbatchedCuda(dev, { transA: 'N', transB: 'N', alpha: 1, beta: 1, a: members(dtype, (n) => [n, n]), b: members(dtype, (n) => [n, n]), c: members(dtype, (n) => [n, n]) }, { tuning: teamTuning });
      for (const uplo of UPLOS) potrfVbatchedCuda(dev, { uplo, a: members(dtype, (n) => [n, n]), info: fakeArray('int32', orders.length) });
      // trsm by the triangle's class, B's other dimension 1, 3, 40 or 70 in turn; potrs and posv on it.
      const other = (i: number): number => [1, 3, 40, 70][i % 4]!;
      const rhs = (dtype: DType): Batch<DeviceArray> => members(dtype, (n) => [n, other(orders.indexOf(n))]);
      for (const v of TRSM_VARIANTS) {
        trsmVbatchedCuda(dev, { ...v, alpha: 1, a: members(dtype, (n) => [n, n]), b: members(dtype, (n) => (v.side === 'left' ? [n, other(orders.indexOf(n))] : [other(orders.indexOf(n)), n])) });
      }
      for (const uplo of UPLOS) {
        potrsVbatchedCuda(dev, { uplo, a: members(dtype, (n) => [n, n]), b: rhs(dtype), info: fakeArray('int32', orders.length) });
        posvVbatchedCuda(dev, { uplo, a: members(dtype, (n) => [n, n]), b: rhs(dtype), info: fakeArray('int32', orders.length) });
      }
      // getrs (op N and T) and gesv on the same members: the row interchanges and trsm's unit-lower and upper classes.
      const lu = { ipiv: fakeArray('int32', orders.length * 600), pivotStride: 600, info: fakeArray('int32', orders.length) };
      for (const trans of ['N', 'T'] as const) getrsVbatchedCuda(dev, { trans, a: members(dtype, (n) => [n, n]), b: rhs(dtype), ...lu });
      gesvVbatchedCuda(dev, { a: members(dtype, (n) => [n, n]), b: rhs(dtype), ...lu });
      // getrf: square, tall and wide members (a class is by max(m, n)).
      for (const shape of [(n: number): [number, number] => [n, n], (n: number): [number, number] => [n, Math.ceil(n / 2)], (n: number): [number, number] => [Math.ceil(n / 2), n]]) {
        getrfVbatchedCuda(dev, { a: members(dtype, shape), ipiv: fakeArray('int32', orders.length * 600), pivotStride: 600, info: fakeArray('int32', orders.length) });
      }
      // trtri by the order's class (the fake device's info reads back empty: past the scan only diag 'unit' reaches the
      // recursion, its trsm class solves); then every class leaf (8, 16, 32) and the scan directly.
      for (const uplo of UPLOS) for (const diag of ['nonunit', 'unit'] as const) trtriVbatchedCuda(dev, { uplo, diag, a: members(dtype, (n) => [n, n]), info: fakeArray('int32', orders.length) });
      record(trtriVbatchedScanSource({ dtype }));
      for (const uplo of UPLOS) for (const diag of ['nonunit', 'unit'] as const) for (const nb of [8, 16, 32]) record(trtriVbatchedLeafSource({ dtype, uplo, diag, nb }));
      // syrk by C's class, k 1, 3, 40 or 70 in turn: the class leaves and the off-diagonal blocks' GEMM classes.
      for (const uplo of UPLOS) for (const trans of ['N', 'T'] as const) for (const beta of [0, 1]) {
        const a = members(dtype, (n) => (trans === 'N' ? [n, other(orders.indexOf(n))] : [other(orders.indexOf(n)), n]));
        syrkVbatchedCuda(dev, { uplo, trans, alpha: 1, beta, a, c: members(dtype, (n) => [n, n]) });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Variable-size batches sized on the device (variableDevice: gemm, potrf, getrf, trsm, potrs, posv, getrs, gesv, syrk,
// trtri): the classification kernels, then the class kernels up to the maxima (600: every class and the large class,
// bound 640), on every device; trsm every side, uplo, trans and diag, and alpha = 0; syrk every uplo and trans, beta 0
// and not; trtri every uplo and diag.

function deviceSizedThroughLaunchers(): void {
  const count = 8;
  const sized = (dtype: DType, maxRows: number): DeviceVariableBatch =>
    variableDevice({ count, rows: fakeArray('int32', count), cols: fakeArray('int32', count), ld: fakeArray('int32', count), pointers: fakeArray('int64', count), maxRows, maxCols: maxRows, dtype });
  for (const info of DEVICES) {
    const dev = fakeDevice(info);
    for (const dtype of DTYPES) {
      for (const [transA, transB] of OPS) for (const beta of [0, 1]) {
        gemmDeviceVariableCuda(dev, { transA, transB, alpha: 1, beta, a: sized(dtype, 600), b: sized(dtype, 600), c: sized(dtype, 600), info: fakeArray('int32', count) });
      }
      for (const uplo of UPLOS) potrfDeviceVariableCuda(dev, { uplo, a: sized(dtype, 600), info: fakeArray('int32', count) });
      getrfDeviceVariableCuda(dev, { a: sized(dtype, 600), ipiv: fakeArray('int32', count * 600), pivotStride: 600, info: fakeArray('int32', count) });
      for (const side of ['left', 'right'] as const) for (const uplo of UPLOS) for (const transA of ['N', 'T'] as const) for (const diag of ['unit', 'nonunit'] as const)
        trsmDeviceVariableCuda(dev, { side, uplo, transA, diag, alpha: -1.5, a: sized(dtype, 600), b: sized(dtype, 600), info: fakeArray('int32', count) });
      trsmDeviceVariableCuda(dev, { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 0, a: sized(dtype, 600), b: sized(dtype, 600), info: fakeArray('int32', count) });
      for (const uplo of UPLOS) {
        potrsDeviceVariableCuda(dev, { uplo, a: sized(dtype, 600), b: sized(dtype, 600), info: fakeArray('int32', count) });
        posvDeviceVariableCuda(dev, { uplo, a: sized(dtype, 600), b: sized(dtype, 600), info: fakeArray('int32', count) });
      }
      for (const trans of ['N', 'T'] as const)
        getrsDeviceVariableCuda(dev, { trans, a: sized(dtype, 600), ipiv: fakeArray('int32', count * 600), pivotStride: 600, b: sized(dtype, 600), info: fakeArray('int32', count) });
      gesvDeviceVariableCuda(dev, { trans: 'N', a: sized(dtype, 600), ipiv: fakeArray('int32', count * 600), pivotStride: 600, b: sized(dtype, 600), info: fakeArray('int32', count) });
      for (const uplo of UPLOS) for (const trans of ['N', 'T'] as const) for (const beta of [0, 1])
        syrkDeviceVariableCuda(dev, { uplo, trans, alpha: -1.5, beta, a: sized(dtype, 600), c: sized(dtype, 600), info: fakeArray('int32', count) });
      for (const uplo of UPLOS) for (const diag of ['unit', 'nonunit'] as const) trtriDeviceVariableCuda(dev, { uplo, diag, a: sized(dtype, 600), info: fakeArray('int32', count) });
    }
  }
}

gemmThroughLauncher();
complexGemmThroughLauncher();
complexCholeskyThroughLaunchers();
complexLuThroughLaunchers();
complexTriangleThroughLaunchers(complexTrsmCuda);
complexRankKThroughLaunchers('herk');
complexTriangleThroughLaunchers(complexTrmmCuda);
complexRankKThroughLaunchers('syrk');
complexInversesThroughLaunchers();
complexHeevThroughLauncher();
complexHeevTridiagThroughLauncher();
gesvdBidiagThroughLauncher();
complexGesvdBidiagThroughLauncher();
complexGesvdThroughLauncher();
complexQrThroughLaunchers();
complexVariableThroughRouter();
vbatchedThroughLaunchers();
deviceSizedThroughLaunchers();
tsm2ThroughLauncher();
factorsThroughLaunchers();
trsmThroughLauncher();
syrkLauumThroughLaunchers();
jacobiThroughLaunchers();
tridiagThroughLaunchers();
qlThreadThroughLaunchers();
inversesThroughLaunchers();
qrThroughLaunchers();
ormqrThroughLauncher();
gelsThroughLauncher();
getriThroughLauncher();
tsqrThroughLauncher();
const launched = seen.size;
gemmDirect();
tsm2Direct();
factorsDirect();
trsmDirect();
syrkLauumDirect();
jacobiDirect();
tridiagDirect();
qlThreadDirect();
inversesDirect();
qrDirect();
ormqrDirect();
gelsDirect();
getriDirect();
tsqrDirect();
complexLuDirect();
vendorDirect();
const lines = [...seen.entries()].map(([h, s]) => `${h}  ${s.entry}`).sort();
process.stdout.write(`${lines.join('\n')}\n`);
process.stderr.write(`${lines.length} distinct kernel sources (${launched} through the launchers, ${lines.length - launched} more from direct parameter sets)\n`);
