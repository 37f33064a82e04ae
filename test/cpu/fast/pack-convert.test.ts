/**
 * float32 batches packed into the float64 working copy of the WebAssembly LU: back-to-back
 * matrices (ld = rows, even rows as the packed ld, stride = rows x cols) copied byte for byte and
 * widened / narrowed in WebAssembly (kernels/convert-wasm.ts), other layouts the element loop
 * (kernels/pack.ts). getrf and gesv at n = 16 ... 40 against the reference bit for bit, with a
 * singular matrix, a NaN and an infinity among good ones, untouched B where info > 0, and
 * batches of several chunks; the conversion kernels against the native converting copies.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { strided } from '../../../src/core/batch.js';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import { generateConvertWasm } from '../../../src/cpu-fast/kernels/convert-wasm.js';
import { Rng, randomArray } from '../../helpers/random.js';
import { conform, info, pivots } from './harness.js';

function luCase(op: 'getrf' | 'gesv', n: number, count: number, nrhs = 2, failing: (p: number) => boolean = () => true) {
  return {
    op,
    label: `float32 ${op} n=${n} count=${count} nrhs=${nrhs} back to back`,
    build(rng: Rng): object {
      const a = randomArray(rng, 'float32', count * n * n);
      for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) a[p * n * n + i + i * n]! += n;
      for (let p = 1; p < count; p += 4) {
        if (!failing(p)) continue;
        for (let i = 0; i < n; i++) a[p * n * n + i + 3 * n] = 0; // column 3 zero (singular, info 4)
        if (p + 1 < count) a[(p + 1) * n * n + 5] = NaN; // a NaN below the diagonal of column 0
        if (p + 2 < count) a[(p + 2) * n * n + 7 + 9 * n] = Infinity; // an infinity
      }
      const r = { a: strided(a, { rows: n, count }), ipiv: pivots(count * n), pivotStride: n, info: info(count) };
      return op === 'getrf' ? r : { ...r, b: strided(randomArray(rng, 'float32', count * n * nrhs), { rows: n, cols: nrhs, count }) };
    },
  };
}

describe('float32 back-to-back batches through the converting block copy match the reference bit for bit', () => {
  test('getrf and gesv, n = 16 ... 40 (odd n: padded ld, the element loop)', () => {
    let seed = 1;
    for (const n of [16, 17, 18, 24, 31, 40]) for (const count of [5, 9]) for (const op of ['getrf', 'gesv'] as const) conform(serialKernels, luCase(op, n, count), seed++, 'float32');
  });
  test('several chunks, failures in some only (B of those chunks unpacked matrix by matrix), element counts not a multiple of four', () => {
    let seed = 100;
    // 16 x 16 with one right-hand side: about 110 matrices a chunk
    for (const [n, nrhs, count] of [[16, 1, 251], [18, 1, 125], [16, 3, 203]] as const) {
      for (const op of ['getrf', 'gesv'] as const) conform(serialKernels, luCase(op, n, count, nrhs, (p) => p > 150), seed++, 'float32');
    }
  });
  test('widen and narrow round as the native converting copies, NaN, infinities and subnormals included', () => {
    const mem = new WebAssembly.Memory({ initial: 1 });
    const { widen, narrow } = new WebAssembly.Instance(new WebAssembly.Module(generateConvertWasm()), { env: { mem } }).exports as Record<string, (src: number, dst: number, count: number) => void>;
    const rng = new Rng(9);
    const special = [NaN, Infinity, -Infinity, 0, -0, 1e-40, -3e-39, 1e-310, 3.4028235677973366e38, 3.4028236e38, 1e39, 1 + 2 ** -24, 1 + 2 ** -24 + 2 ** -40];
    for (let count = 0; count <= 13; count++) {
      const d = new Float64Array(count).map((_, i) => (i % 3 === 0 ? special[(i + count) % special.length]! : (rng.next() - 0.5) * 10 ** rng.int(-45, 45)));
      const f = Float32Array.from(d);
      new Float32Array(mem.buffer).fill(7);
      new Float32Array(mem.buffer).set(f, 0);
      widen!(0, 1024, count);
      assert.deepEqual(new Uint8Array(mem.buffer, 1024, 8 * count + 8), new Uint8Array(new Float64Array([...Float64Array.from(f), new Float64Array(new Float32Array([7, 7]).buffer)[0]!]).buffer), `widen ${count}`);
      new Float64Array(mem.buffer).set(d, 512 / 8);
      narrow!(512, 4096, count);
      assert.deepEqual(new Uint8Array(mem.buffer, 4096, 4 * count + 4), new Uint8Array(new Float32Array([...f, 7]).buffer), `narrow ${count}`);
    }
  });
});
