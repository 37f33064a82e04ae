/**
 * The TMA-fed GEMM design without a GPU: the generator is pure and rejects what it cannot run,
 * the tensor maps and the alignment rule, the planner (where forced or a card's route holds a
 * single product, only on sm_90 with aligned strided float64 operands, else the mma design), the tensor-map encoder's checks
 * (a driver stub), and (where nvcc is installed) kernels that compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Op } from '../../src/core/ops.js';
import { generateTmaGemm, tmaGemmShape, tmaOperandFits, tmaOperandMap, TMA_BK } from '../../src/cuda/kernels/gemm/generate-tma.js';
import type { GemmOperandLayouts, TmaGemmParams } from '../../src/cuda/kernels/gemm/params.js';
import { planGemm, type GemmProblem } from '../../src/cuda/kernels/gemm/plan.js';
import { gemmSource } from '../../src/cuda/kernels/gemm/launch.js';
import { tmaRouteFor, tmaRoutesFor, tuningFor, type TmaConfig, type TmaRoute } from '../../src/cuda/model/tuning/index.js';
import { TMA_SWEEP_VARIANTS } from '../../src/cuda/tune/gemm-tma-variants.js';
import type { CudaDriverApi } from '../../src/cuda/runtime/ffi-cuda.js';
import { encodeTensorMap, TENSOR_MAP_BYTES } from '../../src/cuda/runtime/tensor-map.js';
import type { TensorMapSpec } from '../../src/cuda/runtime/types.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';
import { H100 } from '../helpers/devices.js';

const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];
const LOOSE: GemmOperandLayouts = { a: { kind: 'strided', dense: false }, b: { kind: 'strided', dense: false }, c: { kind: 'strided', dense: false } };

function tma(over: Partial<TmaGemmParams> = {}): TmaGemmParams {
  return { variant: 'tma', dtype: 'float64', transA: 'N', transB: 'N', betaZero: false, layouts: LOOSE, bm: 128, bn: 128, wm: 2, wn: 4, stages: 4, ...over };
}

test('the tma generator is pure, and every parameter changes the text', () => {
  const p = tma({ tileGroup: 16 });
  assert.deepEqual(generateTmaGemm(p), generateTmaGemm(structuredClone(p)));
  const variants = [tma(), tma({ transA: 'T' }), tma({ transB: 'T' }), tma({ betaZero: true }), tma({ bm: 64 }), tma({ bn: 64 }),
    tma({ wm: 4, wn: 2 }), tma({ stages: 6 }), tma({ tileGroup: 8 }), tma({ producerWarp: true }), tma({ mmaK: 4 }), tma({ mmaK: 16 }),
    tma({ persistent: true }), tma({ persistent: true, producerWarp: true }), tma({ persistent: true, mmaK: 16 })];
  const sources = variants.map(generateTmaGemm);
  assert.equal(new Set(sources.map((s) => s.source)).size, variants.length);
  assert.equal(new Set(sources.map((s) => s.entry)).size, variants.length);
  for (const s of sources) {
    assert.ok(s.source.includes(`${s.entry}(`) && s.entry.startsWith('gemm_tma_d'));
    assert.match(s.source, /const __grid_constant__ TmaMap mapA, const __grid_constant__ TmaMap mapB/);
    assert.match(s.source, /cp\.async\.bulk\.tensor\.3d\.shared::cluster\.global\.mbarrier::complete_tx::bytes/);
  }
  assert.equal(gemmSource(p).source, generateTmaGemm(p).source, 'the launcher generates the same text');
});

test('the mma shape and the persistent grid at their defaults leave the kernel as it was', () => {
  for (const [transA, transB] of OPS) {
    const plain = generateTmaGemm(tma({ transA, transB, tileGroup: 16 }));
    assert.deepEqual(generateTmaGemm(tma({ transA, transB, tileGroup: 16, mmaK: 8, persistent: false })), plain);
    assert.match(plain.source, /mma\.sync\.aligned\.m16n8k8\./);
    assert.doesNotMatch(plain.source, /m16n8k(4|16)|gridDim\.x/);
  }
  // The other shapes: their instruction, and no m16n8k8 multiply left in the main loop.
  for (const k of [4, 16] as const) {
    const src = generateTmaGemm(tma({ mmaK: k })).source;
    assert.match(src, new RegExp(`mma\\.sync\\.aligned\\.m16n8k${k}\\.row\\.col\\.f64`));
    assert.match(src, new RegExp(`mmaF64k${k}\\(acc\\[u\\]\\[t\\]`));
    assert.doesNotMatch(src, /mmaF64\(acc/);
  }
  // A persistent grid: one dimension of blocks walking the items, no batch from grid y and z.
  for (const producerWarp of [false, true]) {
    const src = generateTmaGemm(tma({ persistent: true, producerWarp, tileGroup: 16 })).source;
    assert.match(src, /for \(int w = blockIdx\.x; w < work; w \+= gridDim\.x\)/);
    assert.doesNotMatch(src, /blockIdx\.[yz]|gridDim\.[yz]/);
    assert.equal(src.includes('produceAt(s - 1 + STAGES)'), !producerWarp, 'thread 0 refills between its k-steps without a producer warp');
  }
});

test('beta = 0 never reads C; the main loop has no global address or bound', () => {
  for (const [transA, transB] of OPS) {
    const src = generateTmaGemm(tma({ transA, transB, betaZero: true })).source;
    assert.ok(!/beta \*/.test(src) && !/\bold\b/.test(src), `${transA}${transB}: C is not read`);
    const loop = src.slice(src.indexOf('for (int s = 0; s < steps; ++s) {\n    const int stage'), src.indexOf('// Every lane'));
    assert.ok(loop.length > 0 && !/[<>]=? *[mnk]\b/.test(loop) && !/\bld[ABC]\b/.test(loop), `${transA}${transB}: no bounds or leading dimensions in the main loop`);
  }
});

test('tma params outside the design are rejected', () => {
  const bad: Partial<TmaGemmParams>[] = [
    { dtype: 'float32' }, { bm: 96, wm: 4 }, { bn: 48, wn: 2 }, { stages: 1 }, { stages: 9 }, { bm: 512, wm: 8 },
    { layouts: { ...LOOSE, a: { kind: 'pointer', dense: false } } }, { triangle: 'lower' }, { complex: { conjA: false, conjB: false } },
    { bm: 256, bn: 256, stages: 4 }, { tileGroup: 0 }, { mmaK: 2 as 4 }, { mmaK: 32 as 16 },
  ];
  for (const over of bad) assert.throws(() => generateTmaGemm(tma(over)), /invalid tma gemm params/, JSON.stringify(over));
});

test('the kernel shape: mma warps (+ a producer warp), the ring of 1024-byte aligned stages and its barriers', () => {
  assert.deepEqual(tmaGemmShape(tma()), { threads: 256, sharedBytes: 1024 + 4 * 256 * 16 * 8 + 64 });
  assert.deepEqual(tmaGemmShape(tma({ producerWarp: true, bn: 64, wn: 2 })), { threads: 160, sharedBytes: 1024 + 4 * 192 * 16 * 8 + 64 });
  assert.equal(TMA_BK, 16, 'one 128-byte row of doubles: the 128-byte swizzle');
});

test('tensor maps: dims, byte strides and boxes of each operand layout', () => {
  const a = { rows: 300, cols: 70, ld: 302, stride: 302 * 70 + 4 };
  // A (m-contiguous): boxes of 16 x 16; A^T (k-contiguous): 16 k by BM rows.
  assert.deepEqual(tmaOperandMap(tma(), 'a', a, 3), { dims: [300, 70, 3], strides: [302 * 8, (302 * 70 + 4) * 8], box: [16, 16, 1] });
  assert.deepEqual(tmaOperandMap(tma({ transA: 'T', bm: 64, wm: 2 }), 'a', a, 3).box, [16, 64, 1]);
  // B (k-contiguous): 16 k by BN rows; B^T (n-contiguous): 16 x 16.
  assert.deepEqual(tmaOperandMap(tma({ bn: 64, wn: 2 }), 'b', a, 2).box, [16, 64, 1]);
  assert.deepEqual(tmaOperandMap(tma({ transB: 'T' }), 'b', a, 2).box, [16, 16, 1]);
  // A batch of one: a nominal batch stride, a multiple of 16 bytes, whatever the given stride.
  const one = tmaOperandMap(tma(), 'a', { rows: 7, cols: 3, ld: 8, stride: 1 }, 1);
  assert.deepEqual(one.dims, [7, 3, 1]);
  assert.ok(one.strides[1] % 16 === 0 && one.strides[1] >= 8 * 3 * 8);
});

test('tensor maps need 16-byte aligned first elements, ld and strides, and batches that do not overlap', () => {
  const o = { rows: 7, cols: 5, ld: 8, stride: 40 };
  assert.ok(tmaOperandFits(0x1000n, o, 3));
  assert.ok(!tmaOperandFits(0x1008n, o, 3), 'first element');
  assert.ok(!tmaOperandFits(0x1000n, { ...o, ld: 9, stride: 45 }, 1), 'odd ld');
  assert.ok(!tmaOperandFits(0x1000n, { ...o, stride: 41 }, 3), 'odd stride');
  assert.ok(tmaOperandFits(0x1000n, { ...o, stride: 41 }, 1), 'a batch of one has no stride');
  assert.ok(!tmaOperandFits(0x1000n, { ...o, stride: 0 }, 3), 'broadcast (stride 0)');
});

function problem(over: Partial<GemmProblem> = {}): GemmProblem {
  return { dtype: 'float64', transA: 'N', transB: 'T', m: 4096, n: 4096, k: 512, count: 1, batchKind: 'strided', betaZero: false, tmaFits: true, ...over };
}

test('the planner takes the tma design only where forced and it can serve; else what mma would', () => {
  const sm90 = tuningFor('sm_90', 'gemm');
  assert.ok((sm90.tma?.length ?? 0) > 0, 'the sm_90 table has tma bands');
  const forced = planGemm(H100, problem(), { variant: 'tma' });
  assert.equal(forced.variant, 'tma');
  assert.deepEqual({ ...forced, variant: undefined }, { ...forced, ...sm90.tma!.at(-1)!.config, variant: undefined });
  assert.equal(planGemm(H100, problem({ m: 200, n: 200 }), { variant: 'tma' }).variant, 'tma');
  // Never by default.
  for (const n of [64, 512, 4096, 16384]) assert.notEqual(planGemm(H100, problem({ m: n, n })).variant, 'tma');
  // What cannot run on TMA falls back to mma (or what the plan would take without tensor cores).
  const fallbacks: [string, GemmProblem, typeof H100][] = [
    ['unaligned', problem({ tmaFits: false }), H100],
    ['unknown alignment', problem({ tmaFits: undefined }), H100],
    ['k = 0', problem({ k: 0 }), H100],
    ['list batch', problem({ batchKind: 'list' }), H100],
    ['sm_80', problem(), { ...H100, arch: 'sm_80', major: 8, minor: 0 }],
    ['sm_100', problem(), { ...H100, arch: 'sm_100', major: 10, minor: 0 }],
  ];
  for (const [why, p, info] of fallbacks) assert.equal(planGemm(info, p, { variant: 'tma' }).variant, 'mma', why);
  assert.equal(planGemm(H100, problem({ dtype: 'float32' }), { variant: 'tma' }).variant, 'tiled', 'float32');
  assert.notEqual(planGemm(H100, problem({ complex: { conjA: false, conjB: false } }), { variant: 'tma' }).variant, 'tma', 'complex');
  assert.equal(planGemm(H100, problem(), { variant: 'tma', tuning: { ...sm90, tma: [] } }).variant, 'mma', 'a table without tma bands');
});

test('single products take the tma design where the card\'s routes hold them, and nowhere else', () => {
  const config: TmaConfig = { bm: 128, bn: 128, wm: 2, wn: 4, stages: 3, tileGroup: 16, persistent: true };
  const routes: TmaRoute[] = [
    { transA: 'N', transB: 'N', m: [4096, 16384], n: [4096, 16384], k: [2048, 16384], config },
    { transA: 'T', transB: 'N', m: [4096, 8192], n: [4096, 8192], k: [4096, 8192], config: { ...config, mmaK: 16 } },
  ];
  const plan = (over: Partial<GemmProblem>, info = H100, variant?: 'mma'): ReturnType<typeof planGemm> =>
    planGemm(info, problem({ transB: 'N', m: 8192, n: 8192, k: 8192, ...over }), { tmaRoutes: routes, ...(variant === undefined ? {} : { variant }) });
  const taken = plan({});
  assert.equal(taken.variant, 'tma');
  assert.deepEqual({ ...taken, variant: undefined }, { ...taken, ...config, variant: undefined }, 'the route\'s configuration');
  assert.equal((plan({ transA: 'T', m: 4096, n: 8192, k: 4096 }) as TmaGemmParams).mmaK, 16, 'the second route');
  assert.equal(plan({ m: 4096, n: 16384, k: 2048, betaZero: true }).variant, 'tma', 'the ranges are inclusive');
  const outside: [string, ReturnType<typeof planGemm>][] = [
    ['k below the range', plan({ k: 512 })], ['m above the range', plan({ m: 16385 })], ['n below the range', plan({ n: 4095 })],
    ['another op pair', plan({ transB: 'T' })], ['TN outside its ranges', plan({ transA: 'T', k: 16384 })],
    ['a batch', plan({ count: 2 })], ['unaligned', plan({ tmaFits: false })], ['alignment unknown', plan({ tmaFits: undefined })],
    ['sm_80', plan({}, { ...H100, arch: 'sm_80', major: 8, minor: 0 })], ['forced mma', plan({}, H100, 'mma')],
  ];
  for (const [why, p] of outside) assert.equal(p.variant, 'mma', why);
  assert.equal(plan({ dtype: 'float32' }).variant, 'tiled', 'float32');
  assert.notEqual(plan({ complex: { conjA: false, conjB: false } }).variant, 'tma', 'complex');
  // The cards' tables: the H200's measured routes; a card without a table plans as before.
  const h200 = tmaRoutesFor('NVIDIA H200');
  assert.equal(tmaRouteFor(h200, 'N', 'N', 8192, 8192, 8192)?.config.mmaK, 16, 'H200 NN 8192');
  assert.equal(tmaRouteFor(h200, 'N', 'N', 4096, 4096, 4096)?.config.pipelined, true, 'H200 NN 4096: the pipelined 64 x 64 kernel');
  assert.equal(tmaRouteFor(h200, 'N', 'N', 4096, 8192, 4096)?.config.mmaK, 16, 'H200 NN with n = 8192: the 128 x 128 kernel');
  assert.equal(tmaRouteFor(h200, 'T', 'N', 8191, 4096, 4096)?.config.pipelined, true, 'H200 TN below 8192');
  assert.equal(tmaRouteFor(h200, 'T', 'N', 8192, 8192, 8192)?.config.wm, 4, 'H200 TN 8192');
  assert.equal(tmaRouteFor(h200, 'N', 'T', 4096, 4096, 4096)?.config.pipelined, true, 'H200 NT from 4096');
  assert.equal(tmaRouteFor(h200, 'N', 'N', 8192, 8192, 512)?.config.pipelined, true, 'H200 NN 8192 at k = 512');
  assert.equal(tmaRouteFor(h200, 'N', 'N', 8192, 8192, 511), undefined, 'H200 NN below k = 512 stays on the mma kernel');
  assert.equal(tmaRouteFor(h200, 'N', 'N', 4096, 4096, 512), undefined, 'H200 NN 4096 at k = 512 stays on the mma kernel');
  assert.equal(tmaRouteFor(h200, 'N', 'T', 8192, 8192, 512), undefined, 'H200 NT at k = 512 stays on the mma kernel');
  assert.equal(tmaRouteFor(h200, 'T', 'T', 8192, 8192, 8192), undefined, 'H200 TT not measured');
  assert.deepEqual(tmaRoutesFor(H100.name), []);
  assert.equal(planGemm(H100, problem({ transB: 'N', m: 8192, n: 8192, k: 8192 })).variant, 'mma');
  assert.equal(tmaRouteFor(routes, 'N', 'N', 4096, 4096, 2047), undefined);
});

/** A driver stub that records cuTensorMapEncodeTiled's arguments and writes a pattern into the map. */
function stubDriver(rc = 0): { api: CudaDriverApi; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const api = {
    cuTensorMapEncodeTiled: (...args: unknown[]): number => {
      calls.push(args);
      (args[0] as Uint8Array).forEach((_, i, m) => { m[i] = i; });
      return rc;
    },
  } as unknown as CudaDriverApi;
  return { api, calls };
}

const SPEC: TensorMapSpec = { dataType: 'float64', address: 0x7f0000001000n, dims: [300, 70, 3], strides: [2416, 169136], box: [16, 128, 1], swizzleBytes: 128 };

test('tensor maps: the encoder passes the rank-3 float64 map with the 128-byte swizzle and zero fill, and returns a copy', () => {
  const { api, calls } = stubDriver();
  const map = encodeTensorMap(api, SPEC);
  assert.equal(map.length, TENSOR_MAP_BYTES);
  assert.deepEqual([...map.slice(0, 4)], [0, 1, 2, 3]);
  const [out, dataType, rank, address, dims, strides, box, elementStrides, interleave, swizzle, l2, oob] = calls[0]!;
  assert.ok(out instanceof Uint8Array && out.length === 128 && out.buffer !== map.buffer, 'the result is a copy');
  assert.deepEqual([dataType, rank, address, interleave, swizzle, l2, oob], [8, 3, SPEC.address, 0, 3, 2, 0]);
  assert.deepEqual([...(dims as BigUint64Array)], [300n, 70n, 3n]);
  assert.deepEqual([...(strides as BigUint64Array)], [2416n, 169136n]);
  assert.deepEqual([...(box as Uint32Array)], [16, 128, 1]);
  assert.deepEqual([...(elementStrides as Uint32Array)], [1, 1, 1]);
});

test('tensor maps: bad specs are named before the driver; a driver failure or absence is an error', () => {
  const { api, calls } = stubDriver();
  const bad: [Partial<TensorMapSpec>, RegExp][] = [
    [{ address: SPEC.address + 8n }, /address/], [{ strides: [2412, 169136] }, /strides\[0\]/], [{ strides: [2416] }, /strides/],
    [{ box: [16, 300, 1] }, /box\[1\]/], [{ box: [32, 16, 1] }, /box\[0\]/], [{ dims: [0, 70, 3] }, /dims\[0\]/],
  ];
  for (const [over, field] of bad) {
    assert.throws(() => encodeTensorMap(api, { ...SPEC, ...over }), (e: Error & { argument?: string }) => field.test(`${e.argument} ${e.message}`), JSON.stringify(over, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  }
  assert.equal(calls.length, 0);
  assert.throws(() => encodeTensorMap(stubDriver(1).api, SPEC), /cuTensorMapEncodeTiled failed \(CUresult 1\)/);
  assert.throws(() => encodeTensorMap({} as CudaDriverApi, SPEC), /no cuTensorMapEncodeTiled/);
});

/** Every op pair and beta, the table's configurations, a few others (a producer warp, 6 stages, 64 x 64) and the sweep's variants. */
function compiled(): TmaGemmParams[] {
  const configs: Partial<TmaGemmParams>[] = [
    ...(tuningFor('sm_90', 'gemm').tma ?? []).map((b) => b.config),
    { bm: 128, bn: 64, wm: 2, wn: 2, stages: 4, producerWarp: true }, { bm: 128, bn: 128, wm: 2, wn: 4, stages: 6 }, { bm: 64, bn: 64, wm: 2, wn: 2, stages: 6, tileGroup: 3 },
    ...TMA_SWEEP_VARIANTS.map((v) => v.config),
  ];
  return configs.flatMap((c) => OPS.flatMap(([transA, transB]) => [false, true].map((betaZero) => tma({ ...c, transA, transB, betaZero }))));
}

test('tma kernels compile for sm_90 with nvcc, without spills or local arrays', { skip: NVCC_SKIP }, async () => {
  // The table's kernel, its TT with beta = 0, and the sweep's fullest registers (TN, m16n8k16, persistent).
  const quick = (e: string): boolean => /^gemm_tma_d(NN_128x128x16_w2x4_s4g16|TT_128x128x16_w2x4_s4g16_b0|TN_128x128x16_w2x4_s4g16k16P)$/.test(e);
  const results = await compileForSm90(compileSet(compiled().map(generateTmaGemm), quick));
  const failures = compileFailures(results, (r) =>
    !Number.isFinite(r.registers) ? 'no ptxas report'
      : r.stackFrame !== 0 || r.spillStores !== 0 ? `stack ${r.stackFrame}, spill stores ${r.spillStores}` : undefined);
  if (FULL_COMPILE) for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers`);
  assert.deepEqual(failures, [], failures.join('\n'));
});
