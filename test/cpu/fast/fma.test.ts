/**
 * Relaxed SIMD's fused multiply-add in the factorisations (tuning.ts fmaFor, MYRIAD_CPU_FMA=1
 * forcing it on in every family here, read once when the backend is first imported; on Node 20
 * after turning V8's flag on in this process, before the first probe): the fused kernels really
 * hold relaxed_madd / relaxed_nmadd and the plain ones none; the decision is false wherever the
 * probe is (detection false: the plain kernels); and the fused potrf, posv, getrf and gesv agree
 * with the reference within rounding (one rounding per update instead of two), info and pivots
 * exactly. gemm's fused form: gemm-wasm.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import type { DType } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';

process.env.MYRIAD_CPU_FMA = '1';
// The probe's module (wasm/features.ts), validated before that module is imported: Node 20 needs
// the V8 flag, which newer V8 no longer knows (and complains about), so it is set only if need be.
const PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 0, 32, 0, 253, 135, 2, 11]);
if (!WebAssembly.validate(PROBE)) setFlagsFromString('--experimental-wasm-relaxed-simd');
const available = WebAssembly.validate(PROBE);

const { serialKernels } = await import('../../../src/cpu-fast/backend.js');
const { DEFAULT_CPU_TUNING, fmaDecision } = await import('../../../src/cpu-fast/tuning.js');
const { fmaFor } = await import('../../../src/cpu-fast/context.js');
const { RELAXED_PROBE, relaxedSimdSupported } = await import('../../../src/cpu-fast/wasm/features.js');
const { SIMD } = await import('../../../src/cpu-fast/wasm/opcodes.js');
const { generateGetrfBlockWasm } = await import('../../../src/cpu-fast/kernels/getrf-block-wasm.js');
const { generatePotrfWasm } = await import('../../../src/cpu-fast/kernels/potrf-wasm.js');
const { generatePotrfInterleavedStrided } = await import('../../../src/cpu-fast/kernels/potrf-interleaved.js');
const { conform } = await import('./harness.js');
const { cholesky, lu } = await import('./cases.js');
const { cpuBackend } = await import('../../../src/cpu/backend.js');
const { Rng } = await import('../../helpers/random.js');

/** Occurrences of the SIMD instruction (0xfd, then the opcode as LEB128) in a module's bytes. */
function countSimd(bytes: Uint8Array, opcode: number): number {
  const pattern = [0xfd, 0x80 | (opcode & 0x7f), opcode >> 7];
  let count = 0;
  for (let i = 0; i + 2 < bytes.length; i++) if (bytes[i] === pattern[0] && bytes[i + 1] === pattern[1] && bytes[i + 2] === pattern[2]) count++;
  return count;
}
const fused = (bytes: Uint8Array): number => countSimd(bytes, SIMD.f64x2RelaxedNmadd) + countSimd(bytes, SIMD.f64x2RelaxedMadd);

/** Every kernel with a fused form, by name, as a generator of its bytes for fma on or off. */
const KERNELS: readonly { name: string; bytes: (fma: boolean) => Uint8Array<ArrayBuffer> }[] = [
  ...[16, 24, 64].map((n) => ({ name: `getrf-block n=${n}`, bytes: (fma: boolean) => generateGetrfBlockWasm({ m: n, n, nb: 8, nrhs: 0, roundFactor: false, zeroMax: 0, pairs: n <= 32, fma }) })),
  { name: 'gesv-block n=20', bytes: (fma: boolean) => generateGetrfBlockWasm({ m: 20, n: 20, nb: 8, nrhs: 2, roundFactor: false, zeroMax: 0, fma }) },
  ...[17, 33, 64].map((n) => ({ name: `potrf-wasm n=${n}`, bytes: (fma: boolean) => generatePotrfWasm({ n, fma }) })),
  ...(['lower', 'upper'] as const).flatMap((uplo) => (['locals', 'loop'] as const).flatMap((form) => [4, 8, 12, 16].map((n) => ({
    name: `potrf-interleaved n=${n} ${uplo} ${form}`,
    bytes: (fma: boolean) => generatePotrfInterleavedStrided({ n, uplo, dtype: 'float64', ld: n, pairsPerTrip: 1, form, fma }),
  })))),
];

describe('relaxed SIMD fused multiply-add in the factorisations', () => {
  test('detection: the probe validates here (Node 20 with the flag), and MYRIAD_CPU_FMA=1 turns every family on', () => {
    assert.equal(available, true, 'relaxed SIMD validates (Node 22+, or Node 20 with --experimental-wasm-relaxed-simd)');
    assert.equal(relaxedSimdSupported(), WebAssembly.validate(RELAXED_PROBE));
    for (const kernel of ['gemm', 'potrf', 'potrfInterleaved', 'getrfBlock'] as const) for (const n of [4, 16, 64]) assert.equal(fmaFor(kernel, n), true, `${kernel} ${n}`);
  });

  test('detection false, or MYRIAD_CPU_FMA=0: never fused; unset: the tuning table', () => {
    for (const kernel of ['gemm', 'potrf', 'potrfInterleaved', 'getrfBlock'] as const) for (const n of [1, 4, 8, 16, 32, 64, 512]) {
      for (const fmaMode of ['auto', 'off', 'on'] as const) assert.equal(fmaDecision(false, { ...DEFAULT_CPU_TUNING, fmaMode }, kernel, n), false, `${kernel} ${n} ${fmaMode}`);
      assert.equal(fmaDecision(true, { ...DEFAULT_CPU_TUNING, fmaMode: 'off' }, kernel, n), false);
      assert.equal(fmaDecision(true, { ...DEFAULT_CPU_TUNING, fmaMode: 'on' }, kernel, n), true);
    }
    assert.equal(fmaDecision(true, DEFAULT_CPU_TUNING, 'gemm', 8), true, 'gemm fused by default where supported');
  });

  test('fused kernels hold relaxed_madd / relaxed_nmadd, plain ones none, and both validate', () => {
    for (const k of KERNELS) {
      const on = k.bytes(true), off = k.bytes(false);
      assert.ok(fused(on) > 0, `${k.name}: fused form without relaxed_(n)madd`);
      assert.equal(fused(off), 0, `${k.name}: plain form with relaxed_(n)madd`);
      assert.ok(WebAssembly.validate(on), `${k.name}: fused module does not validate`);
      assert.ok(WebAssembly.validate(off), `${k.name}: plain module does not validate`);
    }
  });

  test('the fused kernels are what ran: potrf and getrf n = 64 differ from the reference somewhere (within rounding above)', () => {
    // Without this, the comparisons below would pass just the same if the plain kernels had run.
    for (const c of [cholesky('strided', 'float64', 64, 'lower', 'potrf'), lu('strided', 'float64', 64, 'getrf')]) {
      const mine = c.build(new Rng(11)) as { a: { data: Float64Array } }, theirs = c.build(new Rng(11)) as { a: { data: Float64Array } };
      (serialKernels[c.op] as (r: object) => void)(mine);
      (cpuBackend[c.op] as (r: object) => void)(theirs);
      const differ = mine.a.data.filter((x, i) => !Object.is(x, theirs.a.data[i])).length;
      assert.ok(differ > 0, `${c.label}: bitwise the reference's, so not fused`);
    }
  });

  const DTYPES: readonly DType[] = ['float64', 'float32'];
  // Each element's updates are rounded once each instead of twice: the results differ from the
  // reference's by a few ulps times the number of updates (the tolerance of the 'upper'
  // Cholesky above the unrolled sizes, which also adds in another order; the blocked LU's).
  for (const dtype of DTYPES) {
    test(`potrf and posv, fused, within rounding of the reference, ${dtype}`, () => {
      for (const n of [4, 5, 8, 9, 12, 16, 17, 24, 33, 64]) for (const uplo of ['lower', 'upper'] as Uplo[]) for (const op of ['potrf', 'posv'] as const) {
        const c = cholesky('strided', dtype, n, uplo, op);
        conform(serialKernels, { ...c, label: `fused ${c.label}`, tolerance: { keys: ['a', 'b'], eps: 8 * (n + 2), scale: n + 5 } }, n * 7 + 1, dtype);
      }
    });
    test(`getrf and gesv, fused, within rounding of the reference, ${dtype}`, () => {
      for (const n of [16, 17, 24, 32, 40, 64]) for (const kind of ['strided', 'list'] as const) for (const op of ['getrf', 'gesv'] as const) {
        const c = lu(kind, dtype, n, op);
        conform(serialKernels, { ...c, label: `fused ${c.label}`, tolerance: { keys: ['a', 'b'], eps: 8 * (n + 2), scale: n + 2 } }, n * 5 + 3, dtype);
      }
    });
  }
});
