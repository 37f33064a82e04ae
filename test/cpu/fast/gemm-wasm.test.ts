/**
 * The WebAssembly gemm kernel on its own (kernels/gemm-wasm.ts), against a float64 sum of
 * products: every square size 1 ... 40, 47, 64, 100, 128, both dtypes, op(B) = B and B^T, alpha
 * and beta (beta = 0 with C poisoned by NaN: never read), every micro-tile the tuning table uses
 * and a few more, several row blocks, A with a leading dimension longer than m, the multiply-add and (where the engine accepts relaxed SIMD,
 * if need be after turning its V8 flag on in this test process) the fused form. A guard after C
 * must come back untouched (partial vectors store only their live lanes).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { DTYPE_EPS, type DType } from '../../../src/core/dtype.js';
import type { Op } from '../../../src/core/ops.js';
import { generateGemmWasm, lanes, type GemmWasmParams } from '../../../src/cpu-fast/kernels/gemm-wasm.js';
import { gemmWasmParams, selectGemm } from '../../../src/cpu-fast/ops/gemm.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { RELAXED_PROBE, relaxedSimdSupported } from '../../../src/cpu-fast/wasm/features.js';
import { Rng } from '../../helpers/random.js';

const SIZES = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 64, 100, 128];
const GUARD = 8;

/** Whether fused kernels can be compiled here (Node 20 needs the flag, which V8 accepts at run time before the first such module). */
const fmaAvailable = ((): boolean => {
  if (relaxedSimdSupported()) return true;
  setFlagsFromString('--experimental-wasm-relaxed-simd');
  return WebAssembly.validate(RELAXED_PROBE);
})();

/** Runs the kernel on `count` random matrices and checks every element of C and the guard after it. */
function check(p: GemmWasmParams, count: number, alpha: number, beta: number, seed: number): void {
  const { m, n, k, dtype, lda } = p;
  const rng = new Rng(seed);
  const E = dtype === 'float64' ? 8 : 4;
  const sizeA = lda * k, sizeB = k * n, sizeC = m * n;
  const elements = count * (sizeA + sizeB + sizeC) + GUARD;
  const mem = new WebAssembly.Memory({ initial: Math.ceil((elements * E + 64) / 65536) });
  const exports = new WebAssembly.Instance(new WebAssembly.Module(generateGemmWasm(p)), { env: { mem } }).exports;
  const gemm = exports.gemm as (a: number, b: number, c: number, count: number, alpha: number, beta: number) => void;
  const v = dtype === 'float64' ? new Float64Array(mem.buffer, 0, elements) : new Float32Array(mem.buffer, 0, elements);
  const a0 = 0, b0 = count * sizeA, c0 = b0 + count * sizeB, g0 = c0 + count * sizeC;
  for (let i = 0; i < g0; i++) v[i] = rng.uniform();
  if (beta === 0) v.fill(NaN, c0, g0);
  for (let i = 0; i < GUARD; i++) v[g0 + i] = 1e30 + i;
  const before = Float64Array.from(v);
  gemm(a0 * E, b0 * E, c0 * E, count, alpha, beta);
  const opB = (q: number, l: number, j: number): number => before[b0 + q * sizeB + (p.transB === 'N' ? l + j * k : j + l * n)]!;
  const label = `${dtype} ${m}x${n}x${k} lda ${lda} ${p.transB} tile ${p.tile.rv}x${p.tile.nr} rowBlock ${p.rowBlock} fma ${p.fma} alpha ${alpha} beta ${beta}`;
  for (let q = 0; q < count; q++) for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
    let s = 0, mag = 0;
    for (let l = 0; l < k; l++) {
      const t = before[a0 + q * sizeA + i + l * lda]! * opB(q, l, j);
      s += t;
      mag += Math.abs(t);
    }
    const c = before[c0 + q * sizeC + i + j * m]!;
    const want = beta === 0 ? alpha * s : alpha * s + beta * c;
    const got = v[c0 + q * sizeC + i + j * m]!;
    const bound = 4 * (k + 2) * DTYPE_EPS[dtype] * (Math.abs(alpha) * mag + (beta === 0 ? 0 : Math.abs(beta * c)));
    if (!(Math.abs(got - want) <= bound)) assert.fail(`${label}: C[${q}](${i}, ${j}) is ${got}, want ${want}`);
  }
  for (let i = 0; i < GUARD; i++) assert.ok(Object.is(v[g0 + i], before[g0 + i]), `${label}: the guard after C was written`);
  for (let i = 0; i < c0; i++) if (!Object.is(v[i], before[i])) assert.fail(`${label}: A or B changed at ${i}`);
}

const params = (m: number, n: number, k: number, dtype: DType, transB: Op, fma: boolean): GemmWasmParams => gemmWasmParams(m, n, k, dtype, transB, fma);

describe('cpu-fast WebAssembly gemm kernel', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    test(`square sizes, the tuned tiles, ${dtype}`, () => {
      for (const n of SIZES) for (const transB of ['N', 'T'] as const) {
        const [alpha, beta] = [[1, 0], [-0.5, 1], [1.25, -0.5], [2, 0]][n % 4]!;
        check(params(n, n, n, dtype, transB, false), n <= 16 ? 3 : n <= 64 ? 2 : 1, alpha!, beta!, n);
      }
    });
    test(`shapes, tiles and row blocks, ${dtype}`, () => {
      const shapes = [[1, 1, 1], [1, 9, 3], [9, 1, 3], [3, 5, 1], [5, 3, 2], [7, 13, 11], [17, 6, 9], [33, 8, 2], [2, 33, 40], [47, 10, 5]] as const;
      const tiles = [{ rv: 1, nr: 1 }, { rv: 2, nr: 4 }, { rv: 3, nr: 2 }, { rv: 4, nr: 2 }, { rv: 1, nr: 5 }];
      for (const [m, n, k] of shapes) for (const tile of tiles) for (const transB of ['N', 'T'] as const) {
        // row blocks of one tile's rows: every row block but the last in a loop, the last partial
        const p = { ...params(m, n, k, dtype, transB, false), tile, rowBlock: tile.rv * lanes(dtype) };
        check(p, 3, 1.5, m % 2 === 0 ? 0 : -2, m * 100 + n * 10 + k);
        check({ ...p, lda: m + 1 + (k % 3) }, 2, -1, m % 2 === 0 ? 0.5 : 0, m + n + k);
      }
    });
    test(`fused multiply-add (relaxed SIMD) ${dtype}`, { skip: fmaAvailable ? false : 'this engine does not validate relaxed SIMD' }, () => {
      for (const n of [1, 2, 3, 5, 8, 9, 16, 17, 31, 64]) for (const transB of ['N', 'T'] as const) for (const tile of [cpuTuning().gemmWasm[dtype].fmaTile, cpuTuning().gemmWasm[dtype].tile]) {
        check({ ...params(n, n + 1, n + 2, dtype, transB, true), tile }, 2, 0.75, n % 2 === 0 ? 0 : 1, n);
      }
    });
  }
  test('the kernel takes strided batches of every size; JavaScript only for tiny matrices one at a time', () => {
    for (const dtype of ['float64', 'float32'] as const) {
      assert.equal(selectGemm(2, 2, 2, dtype, true), 'wasm');
      assert.equal(selectGemm(2, 2, 2, dtype, false), 'js');
      assert.equal(selectGemm(9, 9, 9, dtype, false), 'wasm');
      assert.deepEqual(gemmWasmParams(3 * lanes(dtype), 4, 4, dtype, 'N', false).tile, cpuTuning().gemmWasm[dtype].threeVectorTile);
      // fused: the 3 x 3 tile where m is a multiple of 3 vectors, the plain tiles elsewhere
      assert.deepEqual(gemmWasmParams(6 * lanes(dtype), 8, 8, dtype, 'N', true).tile, cpuTuning().gemmWasm[dtype].fmaTile);
      assert.deepEqual(gemmWasmParams(3 * lanes(dtype), 8, 8, dtype, 'N', true).tile, cpuTuning().gemmWasm[dtype].fmaTile);
      assert.deepEqual(gemmWasmParams(4 * lanes(dtype), 8, 8, dtype, 'N', true).tile, cpuTuning().gemmWasm[dtype].tile);
      // a large A of 256-byte columns gets a cache line more per column; small ones none
      const E = dtype === 'float64' ? 8 : 4;
      assert.equal(gemmWasmParams(512, 512, 512, dtype, 'N', false).lda, 512 + 64 / E);
      assert.equal(gemmWasmParams(64, 64, 64, dtype, 'N', false).lda, 64);
      assert.equal(gemmWasmParams(500, 512, 512, dtype, 'N', false).lda, 500);
    }
  });
});
