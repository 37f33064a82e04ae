/**
 * potrf on the interleaved layout (two matrices per f64x2 vector, ops/potrf-interleaved.ts),
 * and posv (the solve fused; and from n = 9 the default route, that potrf then the WebAssembly
 * potrs), forced whatever tuning.ts enables, against the reference bit for bit: n = 1 ... 16
 * (from 9 the kernel's 'loop' form), both dtypes
 * and triangles, batches of 1, 2, 3, 5 and 17 (odd counts leave a half-empty last pair), a
 * failing matrix (not positive definite at various columns, NaN on and off the diagonal) in
 * each lane position, odd ld / stride / offset, every element outside the factor compared.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matrixAt, strided, type Batch } from '../../../src/core/batch.js';
import type { DType, FloatArray } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import type { PosvRequest, PotrfRequest } from '../../../src/core/ops.js';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import { generatePotrfInterleavedStrided, scratchBytes, type PotrfInterleavedStridedParams } from '../../../src/cpu-fast/kernels/potrf-interleaved.js';
import { posvInterleaved, potrfInterleaved } from '../../../src/cpu-fast/ops/potrf-interleaved.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { Rng, randomArray } from '../../helpers/random.js';
import { conform, info, type HostBackend } from './harness.js';

type Req = PotrfRequest<FloatArray, Int32Array>;

/** potrf with two pairs per loop trip (not the default): quads, then a pair, then a single. */
const forcedTwoPairs: HostBackend = {
  ...serialKernels,
  potrf: (r: Req): void => {
    const a = r.a as Batch<FloatArray>;
    if (a.kind === 'strided' && a.count > 0) assert.ok(potrfInterleaved(r, matrixAt(a, 0), 0, a.count, 2), 'layout accepted');
  },
};

/** The fast backend with potrf and posv always on the interleaved kernel. */
const forced: HostBackend = {
  ...serialKernels,
  posv: (r: PosvRequest<FloatArray, Int32Array>): void => {
    const a = r.a as Batch<FloatArray>;
    if (a.kind === 'strided' && a.count > 0) assert.ok(posvInterleaved(r, matrixAt(a, 0), 0, a.count), 'layout accepted');
  },
  potrf: (r: Req): void => {
    const a = r.a as Batch<FloatArray>;
    assert.equal(a.kind, 'strided');
    if (a.kind === 'strided' && a.count > 0) assert.ok(potrfInterleaved(r, matrixAt(a, 0), 0, a.count), 'layout accepted');
  },
};

/** How matrix p is spoiled: not at all, a negative pivot, NaN on the diagonal, NaN below it (read at step k). */
type Spoil = { how: 'ok' } | { how: 'negative' | 'nanDiagonal' | 'nanOffDiagonal'; k: number };

function potrfCase(dtype: DType, n: number, uplo: Uplo, count: number, spoil: (p: number) => Spoil, layout: { ld: number; stride: number; offset: number }, op: 'potrf' | 'posv' = 'potrf', denseB = false) {
  return {
    op,
    label: `interleaved ${op} ${dtype} n=${n} ${uplo} count=${count} ld=${layout.ld} stride=${layout.stride} offset=${layout.offset}${denseB ? ' dense B' : ''}`,
    build(rng: Rng): object {
      const { ld, stride, offset } = layout;
      const data = randomArray(rng, dtype, offset + (count - 1) * stride + ld * n + 3);
      for (let p = 0; p < count; p++) {
        const o = offset + p * stride;
        for (let i = 0; i < n; i++) data[o + i + i * ld] = n + 1 + (i % 3);
        const s = spoil(p);
        if (s.how === 'ok') continue;
        const k = Math.min(s.k, n - 1);
        if (s.how === 'negative') data[o + k + k * ld] = -0.5;
        else if (s.how === 'nanDiagonal' || k === 0) data[o + k + k * ld] = NaN;
        else data[o + (uplo === 'lower' ? k + 0 * ld : 0 + k * ld)] = NaN; // L(k, 0) / U(0, k)
      }
      const r = { uplo, a: strided(data, { rows: n, cols: n, count, ld, stride, offset }), info: info(count) };
      if (op === 'potrf') return r;
      // B: nrhs = 1 + n % 3, its own odd ld and stride (or dense: back to back, as the bench's), random (a failed matrix's B must stay as it is).
      const nrhs = 1 + (n % 3), ldb = denseB ? n : n + 1, strideB = denseB ? n * nrhs : ldb * nrhs + 1, offsetB = denseB ? 0 : 2;
      const b = randomArray(rng, dtype, offsetB + (count - 1) * strideB + ldb * nrhs + (denseB ? 0 : 1));
      return { ...r, b: strided(b, { rows: n, cols: nrhs, count, ld: ldb, stride: strideB, offset: offsetB }) };
    },
  };
}

const DTYPES: readonly DType[] = ['float64', 'float32'];
const UPLOS: readonly Uplo[] = ['lower', 'upper'];
const COUNTS = [1, 2, 3, 5, 17];

describe('interleaved potrf matches the reference bit for bit', () => {
  test('the kernel validates for every n and triangle', () => {
    for (let n = 1; n <= cpuTuning().interleavedNMax; n++) for (const uplo of UPLOS) assert.ok(WebAssembly.validate(generatePotrfInterleavedStrided({ n, uplo, dtype: 'float64', ld: n + 1, pairsPerTrip: 1 })) && WebAssembly.validate(generatePotrfInterleavedStrided({ n, uplo, dtype: 'float32', ld: n, pairsPerTrip: 2 })), `n=${n} ${uplo}`);
  });
  for (const dtype of DTYPES) {
    test(`all good, odd ld / stride / offset, ${dtype}`, () => {
      let seed = 1;
      for (let n = 1; n <= cpuTuning().interleavedNMax; n++) for (const uplo of UPLOS) for (const count of COUNTS) {
        const layout = { ld: n + 1 + (n % 2), stride: (n + 1 + (n % 2)) * n + 3, offset: 5 };
        conform(forced, potrfCase(dtype, n, uplo, count, () => ({ how: 'ok' }), layout), seed++, dtype);
      }
    });
    test(`one failing matrix in each lane position, ${dtype}`, () => {
      let seed = 1000;
      for (let n = 1; n <= cpuTuning().interleavedNMax; n++) for (const uplo of UPLOS) for (const count of n <= 8 ? [1, 2, 3, 5] : [3, 5]) {
        for (let bad = 0; bad < count; bad++) for (const how of ['negative', 'nanDiagonal', 'nanOffDiagonal'] as const) {
          const k = (bad * 3 + count) % n;
          const layout = { ld: n + 2, stride: (n + 2) * n + 1, offset: 3 };
          conform(forced, potrfCase(dtype, n, uplo, count, (p) => (p === bad ? { how, k } : { how: 'ok' }), layout), seed++, dtype);
        }
      }
    });
    test(`17 matrices, a mix of failures at every column, lane partners failing together, ${dtype}`, () => {
      let seed = 5000;
      const hows = ['ok', 'negative', 'nanDiagonal', 'ok', 'nanOffDiagonal'] as const;
      for (let n = 1; n <= cpuTuning().interleavedNMax; n++) for (const uplo of UPLOS) for (let shift = 0; shift < 3; shift++) {
        const spoil = (p: number): Spoil => {
          const how = hows[(p + shift) % hows.length]!;
          return how === 'ok' ? { how } : { how, k: (p * 5 + shift) % n };
        };
        const layout = { ld: n, stride: n * n + 1 + 2 * shift, offset: shift };
        conform(forced, potrfCase(dtype, n, uplo, 17, spoil, layout), seed, dtype);
        for (const count of [4, 6, 7, 17]) conform(forcedTwoPairs, potrfCase(dtype, n, uplo, count, spoil, layout), seed, dtype);
        seed++;
      }
    });
  }
  for (const dtype of DTYPES) {
    test(`posv: the interleaved potrf then potrs on the matrices that factored, ${dtype}`, () => {
      let seed = 9000;
      for (let n = 1; n <= cpuTuning().interleavedNMax; n++) for (const uplo of UPLOS) for (const count of COUNTS) {
        const layout = { ld: n + 1, stride: (n + 1) * n + 1, offset: 1 };
        conform(forced, potrfCase(dtype, n, uplo, count, () => ({ how: 'ok' }), layout, 'posv'), seed++, dtype);
        for (let bad = 0; bad < Math.min(count, 5); bad++) {
          const spoil = (p: number): Spoil => (p === bad || p === count - 1 - bad ? { how: bad % 2 ? 'nanOffDiagonal' : 'negative', k: (bad + n) % n } : { how: 'ok' });
          conform(forced, potrfCase(dtype, n, uplo, count, spoil, layout, 'posv'), seed++, dtype);
        }
      }
    });
  }
  test('layouts it declines (overlapping footprints, far-apart matrices) stay on the unrolled kernel, still bitwise', () => {
    for (const dtype of DTYPES) for (const n of [4, 8]) {
      const count = 5;
      // Columns of the matrices interleaved (ld = n * count, stride = n), then matrices 3 footprints apart.
      for (const [ld, stride] of [[n * count, n], [n + 1, 3 * ((n - 1) * (n + 1) + n)]] as const) {
        const layout = { ld, stride, offset: 1 };
        const c = potrfCase(dtype, n, 'lower', count, (p) => (p === 2 ? { how: 'negative', k: 1 } : { how: 'ok' }), layout);
        const r = c.build(new Rng(3)) as Req;
        assert.equal(potrfInterleaved(r, matrixAt(r.a, 0), 0, count), false, `declined ld=${ld} stride=${stride}`);
        assert.ok(r.info.every((v) => v === -7), 'nothing done');
        conform(serialKernels, c, 11, dtype);
      }
    }
  });
  for (const dtype of DTYPES) {
    test(`posv n = 9 ... 16 on the backend's own route (interleaved potrf, then potrs on the runs that factored), ${dtype}`, () => {
      assert.ok(cpuTuning().posvComposed.min <= 9 && cpuTuning().posvComposed.max >= 16, 'on by default for n = 9 ... 16');
      let seed = 12000;
      for (let n = 9; n <= 16; n++) for (const uplo of UPLOS) for (const count of [2, 3, 6, 17]) {
        const layout = { ld: n + (n % 2), stride: (n + (n % 2)) * n + 1 + (count % 3), offset: 2 };
        conform(serialKernels, potrfCase(dtype, n, uplo, count, () => ({ how: 'ok' }), layout, 'posv'), seed++, dtype);
        // failures first, last, in runs and alone: B of each failed matrix untouched, the others solved
        const hows = ['negative', 'nanDiagonal', 'nanOffDiagonal'] as const;
        const spoil = (p: number): Spoil => (p === 0 || p === count - 1 || (p % 5 === 2) || (p % 5 === 3 && count > 6)
          ? { how: hows[(p + n) % 3]!, k: (p * 7 + n) % n } : { how: 'ok' });
        conform(serialKernels, potrfCase(dtype, n, uplo, count, spoil, layout, 'posv'), seed++, dtype);
      }
    });
  }
  test('posv n = 9 ... 16: chunks that all factored solved on the factors left in the wasm memory, the others through the arrays', () => {
    // 150 matrices: several chunks (90 a chunk at n = 9, 32 at 16), failures in only some of them
    let seed = 13000;
    for (const dtype of DTYPES) for (const n of [9, 12, 13, 16]) for (const uplo of UPLOS) for (const denseB of [true, false]) {
      const spoil = (p: number): Spoil => (p === 40 || p === 41 || p === 149 ? { how: (['negative', 'nanDiagonal', 'nanOffDiagonal'] as const)[p % 3]!, k: (p + n) % n } : { how: 'ok' });
      conform(serialKernels, potrfCase(dtype, n, uplo, 150, spoil, { ld: n, stride: n * n, offset: 0 }, 'posv', denseB), seed++, dtype);
      conform(serialKernels, potrfCase(dtype, n, uplo, 150, () => ({ how: 'ok' }), { ld: n + 1, stride: (n + 1) * n + 3, offset: 1 }, 'posv', denseB), seed++, dtype);
    }
  });
  test("the kernel's forms agree byte for byte (locals / loop, pairs per trip, with and without the solve)", () => {
    const mem = new WebAssembly.Memory({ initial: 4 });
    const rng = new Rng(21);
    for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of [3, 8, 9, 13, 16]) for (const solve of [false, true]) {
      const es = dtype === 'float32' ? 4 : 8, ld = n + 1, stride = ld * n + 1, count = 8, ldb = n + 1, nrhs = 2;
      const a = randomArray(rng, dtype, count * stride + ld);
      for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) a[p * stride + i + i * ld] = n + 2;
      a[3 * stride + 2 + 2 * ld] = -1; // matrix 3 fails at step 3
      const b = randomArray(rng, dtype, count * ldb * nrhs);
      const bBase = 16 * Math.ceil(a.length * es / 16), infoBase = bBase + 16 * Math.ceil(b.length * es / 16), scratch = infoBase + 64;
      const run = (q: Partial<PotrfInterleavedStridedParams> & { pairsPerTrip: 1 | 2 }): Uint8Array => {
        const view = dtype === 'float32' ? new Float32Array(mem.buffer) : new Float64Array(mem.buffer);
        new Uint8Array(mem.buffer).fill(0);
        view.set(a); view.set(b, bBase / es);
        const bytes = generatePotrfInterleavedStrided({ n, uplo, dtype, ld, ...(solve ? { solve: { ldb } } : {}), ...q });
        const fn = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { mem } }).exports.potrf as (...args: number[]) => void;
        fn(0, stride * es, infoBase, count / (2 * q.pairsPerTrip), bBase, ldb * nrhs * es, solve ? nrhs : 0, scratch);
        return new Uint8Array(mem.buffer).slice(0, scratch);
      };
      assert.ok(scratchBytes(n, 2) + scratch <= mem.buffer.byteLength);
      const base = run({ form: 'locals', pairsPerTrip: 1 });
      for (const q of [{ form: 'locals', pairsPerTrip: 2 }, { form: 'loop', pairsPerTrip: 1 }, { form: 'loop', pairsPerTrip: 2 }] as const) {
        assert.deepEqual(run(q), base, `${dtype} ${uplo} n=${n} solve=${solve} ${JSON.stringify(q)}`);
      }
    }
  });
  test('a batch larger than one chunk', () => {
    for (const dtype of DTYPES) conform(forced, potrfCase(dtype, 8, 'lower', 1001, (p) => (p % 7 === 3 ? { how: 'negative', k: p % 8 } : { how: 'ok' }), { ld: 9, stride: 75, offset: 1 }), 77, dtype);
    for (const dtype of DTYPES) {
      conform(serialKernels, potrfCase(dtype, 16, 'lower', 301, (p) => (p % 9 === 4 ? { how: 'nanOffDiagonal', k: p % 16 } : { how: 'ok' }), { ld: 16, stride: 256, offset: 0 }, 'posv'), 78, dtype);
    }
  });
});
