/**
 * gesv on the interleaved layout (two matrices per f64x2 vector, ops/gesv-interleaved.ts), forced
 * whatever tuning.ts enables and on the backend's own route, against the reference bit for bit:
 * n = 1 ... 16, both dtypes, batches of 2, 3, 5 and 17 (odd counts leave a single last matrix),
 * row interchanges at most steps (general data) and none (a dominant diagonal), a singular
 * matrix (a zero column or a zero pivot at various steps), NaN and infinities, subnormal pivots
 * (divided, not scaled by the reciprocal) beside a normal lane partner, odd ld / stride / offset,
 * pivots and infos poisoned beforehand, B of each failed matrix untouched, every element compared;
 * the same for the matrix-in-locals form (n <= 8) and byte for byte for the generator's options
 * (a float32 pivot that stores as zero among the matrices there).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matrixAt, strided, type Batch } from '../../../src/core/batch.js';
import type { DType, FloatArray } from '../../../src/core/dtype.js';
import type { GesvRequest } from '../../../src/core/ops.js';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import { generateGetrfInterleaved, luScratchBytes, type GetrfInterleavedParams } from '../../../src/cpu-fast/kernels/getrf-interleaved.js';
import { generateGetrfInterleavedLocals } from '../../../src/cpu-fast/kernels/getrf-interleaved-locals.js';
import { gesvInterleaved } from '../../../src/cpu-fast/ops/gesv-interleaved.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { Rng, randomArray } from '../../helpers/random.js';
import { conform, info, pivots, type HostBackend } from './harness.js';

type Req = GesvRequest<FloatArray, Int32Array>;

/** The fast backend with gesv always on the interleaved kernel. */
const forced: HostBackend = {
  ...serialKernels,
  gesv: (r: Req): void => {
    const a = r.a as Batch<FloatArray>;
    if (a.kind === 'strided' && a.count > 0) assert.ok(gesvInterleaved(r, matrixAt(a, 0), 0, a.count), 'layout accepted');
  },
};

/** The same with each pair's matrix in v128 locals (kernels/getrf-interleaved-locals.ts), whatever tuning.ts says. */
const forcedLocals: HostBackend = {
  ...serialKernels,
  gesv: (r: Req): void => {
    const a = r.a as Batch<FloatArray>;
    if (a.kind === 'strided' && a.count > 0) assert.ok(gesvInterleaved(r, matrixAt(a, 0), 0, a.count, 'locals'), 'layout accepted');
  },
};

/** How matrix p is spoiled (at step k). */
type Spoil = 'ok' | 'zeroColumn' | 'zeroPivot' | 'nan' | 'nanPivotColumn' | 'inf' | 'subnormal';
const SPOILS: readonly Spoil[] = ['zeroColumn', 'zeroPivot', 'nan', 'nanPivotColumn', 'inf', 'subnormal'];

function gesvCase(dtype: DType, n: number, count: number, spoil: (p: number) => Spoil, layout: { ld: number; stride: number; offset: number }, dominant: boolean) {
  return {
    op: 'gesv' as const,
    label: `interleaved gesv ${dtype} n=${n} count=${count} ld=${layout.ld} stride=${layout.stride} dominant=${dominant}`,
    build(rng: Rng): object {
      const { ld, stride, offset } = layout;
      const data = randomArray(rng, dtype, offset + (count - 1) * stride + ld * n + 3);
      for (let p = 0; p < count; p++) {
        const o = offset + p * stride;
        if (dominant) for (let i = 0; i < n; i++) data[o + i + i * ld] = n + 1 + (i % 3);
        const how = spoil(p), k = (p * 3 + n) % n;
        if (how === 'zeroColumn') for (let i = 0; i < n; i++) data[o + i + k * ld] = 0;
        else if (how === 'zeroPivot') { for (let i = 0; i < n; i++) data[o + i + k * ld] = 0; if (k > 0) data[o + 0 + k * ld] = 1; }
        else if (how === 'nan') data[o + (n - 1) + k * ld] = NaN;
        else if (how === 'nanPivotColumn') data[o + k + 0 * ld] = NaN;
        else if (how === 'inf') data[o + k + k * ld] = -Infinity;
        else if (how === 'subnormal') { for (let i = 0; i < n; i++) data[o + i + 0 * ld] = dtype === 'float32' ? 0 : 1e-310 * (i + 1); }
      }
      const nrhs = 1 + (n % 3), ldb = n + 1, strideB = ldb * nrhs + 1;
      const b = randomArray(rng, dtype, 2 + (count - 1) * strideB + ldb * nrhs + 1);
      return {
        a: strided(data, { rows: n, cols: n, count, ld, stride, offset }),
        b: strided(b, { rows: n, cols: nrhs, count, ld: ldb, stride: strideB, offset: 2 }),
        ipiv: pivots(count * (n + 1)), pivotStride: n + 1, info: info(count),
      };
    },
  };
}

const DTYPES: readonly DType[] = ['float64', 'float32'];

describe('interleaved gesv matches the reference bit for bit', () => {
  test('the kernel validates for every n, dtype and pairs per trip', () => {
    for (let n = 1; n <= 16; n++) for (const dtype of DTYPES) for (const pairsPerTrip of [1, 2] as const) {
      assert.ok(WebAssembly.validate(generateGetrfInterleaved({ n, dtype, ld: n + 1, pairsPerTrip, solve: { ldb: n } })), `n=${n} ${dtype} ${pairsPerTrip}`);
    }
  });
  for (const dtype of DTYPES) {
    test(`general and dominant data, good and failing matrices in every lane position, ${dtype}`, () => {
      let seed = 1;
      for (let n = 1; n <= 16; n++) for (const count of [2, 3, 5, 17]) for (const dominant of [false, true]) {
        const layout = { ld: n + 1 + (n % 2), stride: (n + 1 + (n % 2)) * n + 3, offset: 5 };
        conform(forced, gesvCase(dtype, n, count, () => 'ok', layout, dominant), seed++, dtype);
        const spoil = (p: number): Spoil => (p % 3 === (n + count) % 3 ? SPOILS[(p + n) % SPOILS.length]! : 'ok');
        conform(forced, gesvCase(dtype, n, count, spoil, layout, dominant), seed++, dtype);
      }
    });
    test(`the matrix in locals (n <= 8), failing matrices in every lane position, ${dtype}`, () => {
      let seed = 300;
      for (let n = 1; n <= 8; n++) for (const count of [3, 17]) {
        const layout = { ld: n + 1 + (n % 2), stride: (n + 1 + (n % 2)) * n + 3, offset: 5 };
        const spoil = (p: number): Spoil => (p % 3 === (n + count) % 3 ? SPOILS[(p + n) % SPOILS.length]! : 'ok');
        conform(forcedLocals, gesvCase(dtype, n, count, spoil, layout, false), seed++, dtype);
        conform(forcedLocals, gesvCase(dtype, n, count, () => 'ok', layout, true), seed++, dtype);
      }
    });
    test(`the backend's own route (cpuTuning().gesvInterleaved), tight layouts and one larger than a chunk, ${dtype}`, () => {
      const range = cpuTuning().gesvInterleaved[dtype];
      assert.ok(range.min <= 8 && range.max >= 8, 'on by default at n = 8');
      let seed = 500;
      for (let n = range.min; n <= range.max; n++) {
        conform(serialKernels, gesvCase(dtype, n, 6, (p) => (p === 4 ? 'zeroPivot' : 'ok'), { ld: n, stride: n * n, offset: 0 }, true), seed++, dtype);
      }
      conform(serialKernels, gesvCase(dtype, 8, 901, (p) => (p % 7 === 2 ? SPOILS[p % SPOILS.length]! : 'ok'), { ld: 8, stride: 64, offset: 0 }, false), seed++, dtype);
    });
  }
  test('A and B in one array: declined, still bitwise on the other kernels', () => {
    for (const dtype of DTYPES) {
      const n = 8, count = 4;
      const build = (rng: Rng): Req => {
        const data = randomArray(rng, dtype, count * n * (n + 1));
        return {
          a: strided(data, { rows: n, cols: n, count, ld: n, stride: n * (n + 1) }),
          b: strided(data, { rows: n, cols: 1, count, ld: n, stride: n * (n + 1), offset: n * n }),
          ipiv: pivots(count * n), pivotStride: n, info: info(count),
        };
      };
      const r = build(new Rng(4));
      assert.equal(gesvInterleaved(r, matrixAt(r.a, 0), 0, count), false, 'declined');
      assert.ok(r.info.every((v) => v === -7), 'nothing done');
      conform(serialKernels, { op: 'gesv', label: `shared array ${dtype}`, build }, 9, dtype);
    }
  });
  test('two pairs per trip, the update as loops and the matrix in locals write the same bytes as the default', () => {
    const mem = new WebAssembly.Memory({ initial: 4 });
    const rng = new Rng(33);
    for (const dtype of DTYPES) for (const n of [3, 8, 11, 14]) {
      const es = dtype === 'float32' ? 4 : 8, ld = n + 1, stride = ld * n + 1, count = 8, nrhs = 2;
      const a = randomArray(rng, dtype, count * stride + ld);
      a[2 * stride + 1] = NaN;
      for (let i = 0; i < n; i++) a[5 * stride + i + (n - 1) * ld] = 0;
      // matrix 6: a pivot that stores as zero in float32, -2^-150 in float64 (lu-rounded-pivot.test.ts)
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) a[6 * stride + i + j * ld] = i === j ? 1 : 0;
      const t = 6 * stride + (n - 2) * (ld + 1);
      [a[t], a[t + 1], a[t + ld], a[t + ld + 1]] = [2 ** -149, 2 ** -140, 0, 2 ** -141];
      const b = randomArray(rng, dtype, count * n * nrhs);
      const bBase = 16 * Math.ceil(a.length * es / 16), ipivBase = bBase + 16 * Math.ceil(b.length * es / 16);
      const infoBase = ipivBase + count * n * 4, scratch = infoBase + 64;
      assert.ok(scratch + 2 * luScratchBytes(n) <= mem.buffer.byteLength);
      const run = (pairsPerTrip: 1 | 2, loopUpdate = false, variant: 'locals' | undefined = undefined): Uint8Array => {
        const view = dtype === 'float32' ? new Float32Array(mem.buffer) : new Float64Array(mem.buffer);
        new Uint8Array(mem.buffer).fill(0);
        view.set(a); view.set(b, bBase / es);
        const params: GetrfInterleavedParams = { n, dtype, ld, pairsPerTrip, loopUpdate, solve: { ldb: n } };
        const bytes = variant === 'locals' ? generateGetrfInterleavedLocals(params) : generateGetrfInterleaved(params);
        const fn = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { mem } }).exports.getrf as (...args: number[]) => void;
        fn(0, stride * es, ipivBase, infoBase, count / (2 * pairsPerTrip), bBase, n * nrhs * es, nrhs, scratch);
        return new Uint8Array(mem.buffer).slice(0, scratch);
      };
      const base = run(1);
      assert.deepEqual(run(2), base, `${dtype} n=${n} two pairs`);
      assert.deepEqual(run(1, true), base, `${dtype} n=${n} update loops`);
      assert.deepEqual(run(2, true), base, `${dtype} n=${n} two pairs, update loops`);
      if (n <= 8) assert.deepEqual(run(1, false, 'locals'), base, `${dtype} n=${n} in locals`);
    }
  });
});
