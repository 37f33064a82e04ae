/**
 * Batched GEMM generators and planner, without a GPU: generation is pure, the planner's choices
 * are sane over a range of shapes, and (where nvcc is installed) a representative set of
 * generated kernels compiles for sm_90 with no spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DType } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import { generateSmallGemm, smallGemmShape, smallGemmWork } from '../../src/cuda/kernels/gemm/generate-small.js';
import { generateMmaGemm } from '../../src/cuda/kernels/gemm/generate-mma.js';
import { generateTiledGemm, tiledGemmShape } from '../../src/cuda/kernels/gemm/generate-tiled.js';
import type { GemmOperandLayouts, GemmParams, MmaGemmParams, SmallGemmParams, TiledGemmParams } from '../../src/cuda/kernels/gemm/params.js';
import { planGemm, tileByPadding, type GemmProblem } from '../../src/cuda/kernels/gemm/plan.js';
import { gemmSource } from '../../src/cuda/kernels/gemm/launch.js';
import { blocksPerSM } from '../../src/cuda/model/occupancy.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { peakBandwidth, peakFlops } from '../../src/cuda/model/roofline.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';
import { H100 } from '../helpers/devices.js';

const DTYPES: readonly DType[] = ['float64', 'float32'];
const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];
const strided = (dense: boolean) => ({ kind: 'strided' as const, dense });
const pointer = { kind: 'pointer' as const, dense: false };
const DENSE: GemmOperandLayouts = { a: strided(true), b: strided(true), c: strided(true) };
const LOOSE: GemmOperandLayouts = { a: strided(false), b: strided(false), c: strided(false) };
const MIXED: GemmOperandLayouts = { a: pointer, b: strided(false), c: pointer };
const MIXED_PLAIN: GemmOperandLayouts = { a: strided(false), b: pointer, c: strided(false) };

function small(over: Partial<SmallGemmParams>): SmallGemmParams {
  const q = {
    variant: 'small' as const, dtype: 'float64' as const, transA: 'N' as const, transB: 'N' as const, m: 8, n: 8, k: 8, tbc: 4, rn: 1,
    stageC: true, betaZero: false, layouts: DENSE, ...over,
  };
  return { ...q, threads: over.threads ?? Math.min(1024, smallGemmWork(q)) };
}
function tiled(over: Partial<TiledGemmParams>): TiledGemmParams {
  return {
    variant: 'tiled', dtype: 'float64', transA: 'N', transB: 'N', bm: 64, bn: 64, bk: 16, tm: 4, tn: 4,
    betaZero: false, layouts: LOOSE, ...over,
  };
}

test('generators are pure: same parameters, same text; different parameters, different text', () => {
  for (const p of [small({}), small({ transA: 'T', layouts: MIXED, betaZero: true }), tiled({}), tiled({ dtype: 'float32', transB: 'T' })]) {
    const gen = p.variant === 'small' ? generateSmallGemm : generateTiledGemm;
    const one = (gen as (q: GemmParams) => ReturnType<typeof generateSmallGemm>)(p);
    const two = (gen as (q: GemmParams) => ReturnType<typeof generateSmallGemm>)(structuredClone(p));
    assert.deepEqual(one, two);
    assert.ok(one.source.includes(`${one.entry}(`), 'the entry is defined in the source');
    assert.ok(one.source.includes(`typedef ${p.dtype === 'float64' ? 'double' : 'float'} real;`));
  }
  const variants = [small({}), small({ tbc: 8 }), small({ rn: 2 }), small({ dtype: 'float32' }), small({ transB: 'T' }),
    small({ betaZero: true }), small({ layouts: MIXED }), small({ stageC: false }), tiled({}), tiled({ bk: 8 }),
    tiled({ triangle: 'lower' }), tiled({ triangle: 'upper' })];
  const texts = new Set(variants.map((p) => gemmSource(p).source));
  assert.equal(texts.size, variants.length);
});

test('a triangle of C: tiles outside it exit, every store is guarded, and without one the text is unchanged', () => {
  for (const base of [tiled({}), { ...tiled({ transB: 'T' }), variant: 'mma', bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 } as GemmParams]) {
    const plain = gemmSource(base).source;
    assert.equal(gemmSource({ ...base, triangle: undefined }).source, plain);
    const lower = gemmSource({ ...base, triangle: 'lower' } as GemmParams);
    const upper = gemmSource({ ...base, triangle: 'upper' } as GemmParams);
    assert.match(lower.source, /if \(i0 \+ BM <= j0\) return;/);
    assert.match(upper.source, /if \(i0 >= j0 \+ BN\) return;/);
    assert.ok(lower.entry.endsWith('_tl') && upper.entry.endsWith('_tu'));
    assert.ok(!plain.includes('>= j') && lower.source.includes('>= j') && upper.source.includes('<= j'));
  }
});

test('a triangular op(A) in place (trmm side left): a column panel a block, row tiles in dependency order, the crossing stages masked', () => {
  const base = { ...tiled({ betaZero: true }), variant: 'mma', bm: 64, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 } as MmaGemmParams;
  const plain = gemmSource(base).source;
  assert.equal(gemmSource({ ...base, triangularA: undefined }).source, plain);
  assert.ok(!plain.includes('maskTriangle') && !plain.includes('kFirst'));
  const lower = gemmSource({ ...base, triangularA: { lower: true, unit: false } });
  const upperUnit = gemmSource({ ...base, triangularA: { lower: false, unit: true } });
  assert.ok(lower.entry.endsWith('_taln') && upperUnit.entry.endsWith('_tauu'));
  // Lower: the last row tile first, k up to the tile's diagonal; upper: the first tile first, k from it.
  assert.match(lower.source, /const int i0 = \(tilesM - 1 - tile\) \* BM;/);
  assert.match(lower.source, /kFirst = 0, kEnd = min\(k, i0 \+ BM\)/);
  assert.match(upperUnit.source, /const int i0 = \(tile\) \* BM;/);
  assert.match(upperUnit.source, /kFirst = i0, kEnd = k/);
  assert.match(lower.source, /if \(p > i\) tA\[/);
  assert.ok(!lower.source.includes('= 1;') && /if \(p < i\) tA\[.*\n\s*else if \(p == i\) tA\[.*\] = 1;/.test(upperUnit.source));
  // B and C alias: neither is __restrict__; A is.
  assert.match(lower.source, /const real\* __restrict__ A,/);
  assert.match(lower.source, /const real\* B,/);
  assert.match(lower.source, /real\* C,/);
  // A^T's stage is k-contiguous and swizzled: the mask addresses it as the copies do.
  const transposed = gemmSource({ ...base, transA: 'T', triangularA: { lower: true, unit: true } }).source;
  assert.match(transposed, /tA\[il \* BK \+ 2 \* \(\(pl >> 1\) \^ SWZ\(il\)\) \+ \(pl & 1\)\]/);
  assert.throws(() => generateMmaGemm({ ...base, betaZero: false, triangularA: { lower: true, unit: false } }), /beta = 0/);
  assert.throws(() => generateMmaGemm({ ...base, doubleBuffer: true, triangularA: { lower: true, unit: false } }), /doubleBuffer/);
  assert.throws(() => generateMmaGemm({ ...base, bm: 32, bn: 64, bk: 64, wm: 2, wn: 2, triangularA: { lower: true, unit: false } }), /bk to divide bm/);
  assert.throws(() => generateMmaGemm({ ...base, triangle: 'lower', triangularA: { lower: true, unit: false } }), /whole C/);
});

test('a triangular op(A) on the tiled kernel (float32 trmm side left): the same walk, the diagonal block\'s terms by a select', () => {
  const base = tiled({ dtype: 'float32', betaZero: true, bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 });
  const plain = gemmSource(base).source;
  assert.equal(gemmSource({ ...base, triangularA: undefined }).source, plain);
  assert.ok(!plain.includes('kFirst') && !plain.includes('diagonal block'));
  const lower = gemmSource({ ...base, triangularA: { lower: true, unit: false } });
  const upperUnit = gemmSource({ ...base, transA: 'T', triangularA: { lower: false, unit: true } });
  assert.ok(lower.entry.endsWith('_taln') && upperUnit.entry.endsWith('_tauu'));
  assert.match(lower.source, /const int i0 = \(tilesM - 1 - tile\) \* BM;/);
  assert.match(lower.source, /kFirst = 0, kEnd = min\(k, i0 \+ BM\)/);
  assert.match(upperUnit.source, /kFirst = i0, kEnd = k/);
  assert.match(lower.source, /const int steps = \(kEnd - kFirst \+ BK - 1\) \/ BK;/);
  assert.match(lower.source, /fetch\(kFirst \+ \(s \+ 1\) \* BK\)/);
  // The diagonal block's steps: block-uniform test, a guarded term a row (never a zero in A's stage).
  assert.match(lower.source, /if \(kFirst \+ s \* BK \+ BK > i0\) \{/);
  assert.match(upperUnit.source, /if \(kFirst \+ s \* BK < i0 \+ BM\) \{/);
  assert.match(lower.source, /const bool in = p <= i;/);
  assert.match(upperUnit.source, /const bool in = p >= i;/);
  assert.match(upperUnit.source, /const real av = p == i \? real\(1\) : fa\[ii\];/);
  assert.match(lower.source, /acc\[ii\]\[jj\] = in \? fmaReal\(av, fb\[jj\], acc\[ii\]\[jj\]\) : acc\[ii\]\[jj\];/);
  // B and C alias: neither is __restrict__; A is.
  assert.match(lower.source, /const real\* __restrict__ A,/);
  assert.match(lower.source, /const real\* B,/);
  assert.match(lower.source, /real\* C,/);
  // The shared walk: the same frame text as the tensor-core kernel's up to its own additions.
  const mma = gemmSource({ ...tiled({ betaZero: true }), variant: 'mma', bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3, triangularA: { lower: true, unit: false } } as MmaGemmParams).source;
  const walk = /const int j0 = blockIdx\.x \* BN;[\s\S]*?kEnd = min\(k, i0 \+ BM\);/;
  const walkText = lower.source.match(walk)?.[0];
  assert.ok(walkText !== undefined && walkText.includes('for (int tile = 0; tile < tilesM; ++tile)'), 'the tiled kernel walks the row tiles');
  assert.equal(walkText, mma.match(walk)?.[0]);
  assert.throws(() => generateTiledGemm({ ...base, betaZero: false, triangularA: { lower: true, unit: false } }), /beta = 0/);
  assert.throws(() => generateTiledGemm({ ...base, bk: 24, triangularA: { lower: true, unit: false } }), /bk to divide bm|multiples of/);
  assert.throws(() => generateTiledGemm({ ...base, bm: 64, bk: 48, triangularA: { lower: true, unit: false } }), /bk to divide bm/);
  assert.throws(() => generateTiledGemm({ ...base, triangle: 'lower', triangularA: { lower: true, unit: false } }), /whole C/);
  assert.throws(() => generateTiledGemm({ ...base, transB: 'T', triangularA: { lower: true, unit: false } }), /transB N/);
});

test('beta = 0 kernels never mention reading C', () => {
  for (const p of [small({ betaZero: true }), small({ betaZero: true, stageC: false, layouts: MIXED }), tiled({ betaZero: true })]) {
    const src = gemmSource(p).source;
    assert.ok(!/beta \*/.test(src), `${gemmSource(p).entry} must not use beta`);
    assert.ok(!src.includes('C is read once'), `${gemmSource(p).entry} must not load C`);
  }
});

test('invalid parameters are refused', () => {
  assert.throws(() => generateSmallGemm(small({ rn: 9 })), /rn must be in 1..n/);
  assert.throws(() => generateSmallGemm(small({ m: 32, n: 32, rn: 1, tbc: 2, threads: 2048 })), /threads must be in 1..1024/);
  assert.throws(() => generateSmallGemm(small({ m: 2, n: 2, k: 2, tbc: 2, threads: 64 })), /more threads than work items/);
  assert.throws(() => generateTiledGemm(tiled({ tm: 3 })), /divide/);
  assert.throws(() => generateTiledGemm(tiled({ layouts: DENSE })), /dense/);
  const mma = { ...tiled({}), variant: 'mma' as const, bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 };
  assert.throws(() => generateMmaGemm({ ...mma, dtype: 'float32' }), /float64 only/);
  assert.throws(() => generateMmaGemm({ ...mma, wm: 3 }), /multiple of 16/);
  assert.throws(() => generateMmaGemm({ ...mma, bk: 24 }), /bk must be 8 or a multiple of 16/);
  assert.throws(() => generateMmaGemm({ ...mma, stages: 0 }), /stages/);
  assert.throws(() => generateTiledGemm(tiled({ dtype: 'float32', tm: 2, tn: 2, bm: 32, bn: 32 })), /multiples of 4/);
});

function problem(over: Partial<GemmProblem>): GemmProblem {
  return { dtype: 'float64', transA: 'N', transB: 'N', m: 8, n: 8, k: 8, count: 1e6, batchKind: 'strided', betaZero: true, ...over };
}

test('planner: float64 batched products on sm_90 whose smaller side is up to 160 and larger above it take the band of the smaller side; both sides above 160 the padding rule to 512, the band of max(m, n) beyond', () => {
  const tuning = tuningFor('sm_90', 'gemm');
  const bands = tuning.mmaSmallSide!;
  const tile = (m: number, n: number, k: number, transB: Op = 'N'): string => {
    const p = planGemm(H100, problem({ m, n, k, transB, count: 1000, betaZero: false }));
    assert.equal(p.variant, 'mma', `${m}x${n}x${k}`);
    const c = p as Extract<GemmParams, { variant: 'mma' }>;
    return `${c.bm}x${c.bn}x${c.bk}`;
  };
  const label = (b: { config: { bm: number; bn: number; bk: number } }): string => `${b.config.bm}x${b.config.bn}x${b.config.bk}`;
  // Up to the padding rule's order both sides count (its tiles by covered area): 64 x 128 is two 64 x 64 tiles.
  const padded = tuning.mmaByPadding!;
  assert.ok(padded.maxDim >= 128);
  assert.equal(tile(64, 128, 64), '64x64x8');
  // trmm / trsm updates above it (C h x n, k = h): the smaller side picks the band, whichever side it is.
  assert.equal(tile(64, 256, 64), label(bands.find((b) => 64 <= b.maxDim)!));
  assert.equal(tile(256, 64, 64, 'T'), label(bands.find((b) => 64 <= b.maxDim)!));
  assert.equal(tile(128, 512, 128), label(bands.find((b) => 128 <= b.maxDim)!));
  // Both sides above the last band: the padding rule's tiles up to its maxDim (192 x 384 on 64 x 64 tiles, 240 x 480
  // on 48 x 48), max(m, n) in `mma` beyond it.
  const last = bands[bands.length - 1]!.maxDim;
  assert.ok(padded.maxDim > last);
  assert.equal(tile(192, 384, 64), '64x64x8');
  assert.equal(tile(240, 480, 96, 'T'), '48x48x8');
  const big = last + 40;
  assert.equal(tile(big, 4 * big, 64), label(tuning.mma.find((b) => 4 * big <= b.maxDim)!));
  assert.ok(4 * big > padded.maxDim);
  // Without the table entry the plan keys on max(m, n).
  const p = planGemm(H100, problem({ m: 64, n: 256, k: 64, count: 1000 }), { tuning: { ...tuning, mmaSmallSide: undefined } });
  assert.equal(`${(p as Extract<GemmParams, { variant: 'mma' }>).bm}`, `${tuning.mma.find((b) => 256 <= b.maxDim)!.config.bm}`);
});

test('tileByPadding: the least covered area times cost; too few blocks for the card raise a tile\'s cost; ties to the earlier tile', () => {
  const t = (bm: number, cost: number) => ({ config: { bm, bn: bm }, cost });
  const tiles = [t(128, 0.95), t(64, 1), t(32, 1.4)];
  const pick = (m: number, n: number, count = 10_000): number => tileByPadding(tiles, m, n, count, 132).bm;
  // 160: 32 x 32 covers C exactly (cost 1.4) where 64 covers 1.44 times its area and 128 2.56 times.
  assert.equal(pick(160, 160), 32);
  assert.equal(pick(192, 192), 64);
  assert.equal(pick(200, 200), 128);   // 128 and 64 both cover 256^2: the cheaper
  assert.equal(pick(40, 40), 64);      // 64 and 32 cover 64^2 alike
  assert.equal(pick(256, 256), 128);
  assert.equal(pick(4096, 8), 32);     // the narrow side pads least on the small tile
  // One matrix of 200: 128-tiles make 4 blocks for 132 SMs, 32-tiles 49: the shortfall decides.
  assert.equal(pick(200, 200, 1), 32);
  // A tie goes to the earlier tile; an empty C to the first.
  assert.equal(tileByPadding([t(32, 1), t(16, 1)], 32, 32, 1e6, 132).bm, 32);
  assert.equal(tileByPadding(tiles, 0, 5, 10, 132).bm, 128);
  assert.throws(() => tileByPadding([], 8, 8, 1, 132), /no tiles/);
});

test('planner: sm_90 squares by padding: float64 to 512 and float32 by the padding of their three tiles; complex keeps the bands', () => {
  const label = (p: GemmParams): string => (p.variant === 'mma' || p.variant === 'tiled' ? `${p.variant} ${p.bm}x${p.bn}x${p.bk}` : p.variant);
  const square = (dtype: 'float64' | 'float32', n: number, count = 5000, transA: Op = 'N', transB: Op = 'N') =>
    label(planGemm(H100, problem({ dtype, m: n, n, k: n, count, transA, transB })));
  // float64: 48 x 48 (cost 1.1) wherever it pads least, 64 x 64 (1) at 49-64 and 97-128 and at 160, where 32 x 32
  // alone would cover C exactly (it serves C whose smaller side is at most 128).
  const f64 = [[33, 48], [40, 48], [48, 48], [56, 64], [63, 64], [64, 64], [65, 48], [72, 48], [80, 48], [96, 48],
    [112, 64], [128, 64], [144, 48], [160, 64], [176, 64], [192, 64], [224, 48], [256, 64], [288, 48], [336, 48], [384, 64],
    [480, 48], [512, 64]] as const;
  const f64Tiles: Record<number, string> = { 64: 'mma 64x64x8', 48: 'mma 48x48x8', 32: 'mma 32x32x16' };
  for (const [n, bm] of f64) assert.equal(square('float64', n), f64Tiles[bm], `float64 ${n}`);
  for (const [transA, transB] of OPS) assert.equal(square('float64', 48, 5000, transA, transB), 'mma 48x48x8', `float64 48 ${transA}${transB}`);
  // The 32 x 32 tile where it pads least on C whose smaller side is at most 128 (32 x 100, 160 x 32), not on 160 x 160.
  const product = (m: number, n: number): string => label(planGemm(H100, problem({ m, n, k: 64, count: 5000 })));
  assert.equal(product(32, 100), 'mma 32x32x16');
  assert.equal(product(160, 32), 'mma 32x32x16');
  assert.equal(product(160, 160), 'mma 64x64x8');
  // Above the rule's 512 the bands of max(m, n), as before.
  const wide = tuningFor('sm_90', 'gemm').mma.find((b) => 600 <= b.maxDim)!.config;
  assert.equal(square('float64', 600), `mma ${wide.bm}x${wide.bn}x${wide.bk}`);
  const f32 = [[40, 'tiled 64x64x8'], [64, 'tiled 64x64x8'], [72, 'tiled 32x32x16'], [96, 'tiled 32x32x16'], [128, 'tiled 128x128x8'],
    [160, 'tiled 32x32x16'], [192, 'tiled 64x64x8'], [288, 'tiled 64x64x8'], [384, 'tiled 128x128x8'], [448, 'tiled 64x64x8']] as const;
  for (const [n, want] of f32) assert.equal(square('float32', n), want, `float32 ${n}`);
  // Without the table entries: the bands of max(m, n).
  const bands = { ...tuningFor('sm_90', 'gemm'), tiledByPadding: undefined, mmaByPadding: undefined };
  assert.equal(label(planGemm(H100, problem({ dtype: 'float32', m: 160, n: 160, k: 160, count: 5000 }), { tuning: bands })), 'tiled 128x128x8');
  assert.equal(label(planGemm(H100, problem({ m: 48, n: 48, k: 48, count: 5000 }), { tuning: bands })), 'mma 32x32x16');
  // complex64 keeps its own tiled bands.
  const z = planGemm(H100, problem({ dtype: 'float32', m: 160, n: 160, k: 160, count: 5000, complex: { conjA: false, conjB: false } }));
  assert.equal(label(z), `tiled ${tuningFor('sm_90', 'gemm').complex.tiled.float32.find((b) => 160 <= b.maxDim)!.config.bm}x${tuningFor('sm_90', 'gemm').complex.tiled.float32.find((b) => 160 <= b.maxDim)!.config.bn}x${tuningFor('sm_90', 'gemm').complex.tiled.float32.find((b) => 160 <= b.maxDim)!.config.bk}`);
});

test('planner: small kernel up to 32 with sane tbc and rn, tiled above; forced variants honoured', () => {
  for (const dtype of DTYPES) {
    for (let n = 1; n <= 40; n++) {
      for (const [m, k] of [[n, n], [Math.max(1, n - 3), n + 1], [n, 1]] as const) {
        const p = planGemm(H100, problem({ dtype, m, n, k }));
        if (Math.max(m, n, k) <= tuningFor('sm_90', 'gemm').smallMaxDim[dtype]) {
          assert.equal(p.variant, 'small', `${m}x${n}x${k}`);
          const s = p as SmallGemmParams;
          const shape = smallGemmShape(s);
          assert.ok(s.rn >= 1 && s.rn <= n && Math.ceil(n / s.rn) * s.rn - n < s.rn, `rn ${s.rn} for n ${n}`);
          assert.ok(shape.threads <= 1024 && shape.threads >= Math.min(64, m * n), `threads ${shape.threads} at ${m}x${n}x${k}`);
          assert.ok(shape.sharedBytes <= 48 * 1024);
          assert.ok(blocksPerSM(H100, { threads: shape.threads, registersPerThread: 64, sharedBytes: shape.sharedBytes }) >= 2);
          generateSmallGemm(s);
        } else {
          assert.equal(p.variant, dtype === 'float64' ? 'mma' : 'tiled', `${m}x${n}x${k}`);
          gemmSource(p);
        }
      }
    }
    for (const n of [64, 100, 128, 200, 256, 1000]) {
      const p = planGemm(H100, problem({ dtype, m: n, n, k: n, count: 1000 }), { variant: 'tiled' }) as TiledGemmParams;
      assert.equal(p.variant, 'tiled');
      assert.ok(tiledGemmShape(p).threads >= 64 && tiledGemmShape(p).threads <= 1024);
      assert.ok(tiledGemmShape(p).sharedBytes <= H100.sharedPerBlockOptin);
    }
    // No FP64 tensor cores before sm_80, none at all for float32.
    assert.equal(planGemm({ ...H100, arch: 'sm_75', major: 7, minor: 5 }, problem({ dtype, m: 64, n: 64, k: 64 })).variant, 'tiled');
  }
  // Tiny batches do not pack many matrices into few blocks.
  const few = planGemm(H100, problem({ m: 2, n: 2, k: 2, count: 100 })) as SmallGemmParams;
  assert.equal(few.tbc, 1);
  const many = planGemm(H100, problem({ m: 2, n: 2, k: 2, count: 1e7 })) as SmallGemmParams;
  assert.ok(many.tbc >= 16, `tbc ${many.tbc} for 2x2`);
  assert.equal(planGemm(H100, problem({ m: 8, n: 8, k: 8 }), { variant: 'tiled' }).variant, 'tiled');
  assert.equal(planGemm(H100, problem({ m: 8, n: 8, k: 8 }), { variant: 'mma' }).variant, 'mma');
  assert.throws(() => planGemm(H100, problem({ dtype: 'float32', m: 64, n: 64, k: 64 }), { variant: 'mma' }), /float64/);
  assert.throws(() => planGemm(H100, problem({ m: 33 }), { variant: 'small' }));
  // A list batch reaches the kernel through pointer arrays, never as a dense span.
  const list = planGemm(H100, problem({ batchKind: 'list' })) as SmallGemmParams;
  assert.deepEqual(list.layouts.a, { kind: 'pointer', dense: false });
});

test('planner: sm_90 stages C in the small kernel where it reads C, within the card\'s measured band per dtype; never with beta = 0 or complex pairs', () => {
  const band = tuningFor('sm_90', 'gemm').smallStageCReadingC;
  assert.ok(band?.float64 && band.float32, 'the sm_90 table has bands for both real dtypes');
  // The measured choices: float64 16 and 24 read C at the end, 12 and 22 stage it; float32 stages from 9.
  assert.deepEqual([4, 8, 12, 16, 22, 24].map((n) => (planGemm(H100, problem({ m: n, n, k: n, count: 5000, betaZero: false })) as SmallGemmParams).stageC),
    [false, false, true, false, true, false]);
  for (const dtype of DTYPES) {
    const staged = (dim: number): boolean => band[dtype]!.some((b) => b.minDim <= dim && dim <= b.maxDim);
    for (let n = 1; n <= 32; n++) {
      for (const [m, k] of [[n, n], [1, n], [n, 1]] as const) {
        const dim = Math.max(m, n, k);
        if (dim > tuningFor('sm_90', 'gemm').smallMaxDim[dtype]) continue;
        const reading = planGemm(H100, problem({ dtype, m, n, k, count: 5000, betaZero: false })) as SmallGemmParams;
        assert.equal(reading.stageC, staged(dim), `${dtype} ${m}x${n}x${k} beta != 0`);
        const zero = planGemm(H100, problem({ dtype, m, n, k, count: 5000, betaZero: true })) as SmallGemmParams;
        assert.equal(zero.stageC, false, `${dtype} ${m}x${n}x${k} beta = 0`);
      }
    }
  }
  const pairs = planGemm(H100, problem({ m: 12, n: 12, k: 12, count: 5000, betaZero: false, complex: { conjA: false, conjB: false } })) as SmallGemmParams;
  assert.equal(pairs.variant, 'small');
  assert.equal(pairs.stageC, false);
  // Without a band (another card's table) the beta = 0 rules decide.
  const none = planGemm(H100, problem({ m: 12, n: 12, k: 12, count: 5000, betaZero: false }), { tuning: { ...tuningFor('sm_90', 'gemm'), smallStageCReadingC: undefined } }) as SmallGemmParams;
  assert.equal(none.stageC, false);
});

test('roofline model: H100 attributes give about 3.35 TB/s and 33.8 / 67.6 TFLOP/s', () => {
  assert.ok(Math.abs(peakBandwidth(H100) / 1e12 - 3.35) < 0.01);
  assert.ok(Math.abs(peakFlops(H100, 'float64') / 1e12 - 33.45) < 0.1);
  assert.ok(Math.abs(peakFlops(H100, 'float32') / 1e12 - 66.9) < 0.2);
});

/** The kernels the nvcc check compiles: both precisions, all transposes, small and tiled, several tbc and layouts. */
function representativeKernels(): GemmParams[] {
  const out: GemmParams[] = [];
  DTYPES.forEach((dtype, d) => {
    OPS.forEach(([transA, transB], o) => {
      const layouts = [DENSE, LOOSE, MIXED][(o + d) % 3]!;
      out.push(small({ dtype, transA, transB, m: 2, n: 2, k: 2, tbc: 64, betaZero: o % 2 === 0, layouts }));
      out.push(small({ dtype, transA, transB, m: 7, n: 5, k: 3, tbc: 7, stageC: o % 2 === 1, layouts }));
      out.push(tiled({ dtype, transA, transB, betaZero: o % 2 === 1, layouts: o === 3 ? { a: pointer, b: pointer, c: pointer } : LOOSE }));
    });
    out.push(small({ dtype, m: 16, n: 16, k: 16, tbc: 2, rn: 2, stageC: false }));
    out.push(small({ dtype, transA: 'T', m: 2, n: 2, k: 2, tbc: 128, threads: 128, betaZero: false }));
    out.push(small({ dtype, transB: 'T', m: 4, n: 4, k: 4, tbc: 60, threads: 96, stageC: true, betaZero: true }));
    out.push(small({ dtype, transB: 'T', m: 31, n: 31, k: 29, tbc: 1, rn: 8, stageC: false, betaZero: true }));
    out.push(small({ dtype, transA: 'T', transB: 'T', m: 32, n: 32, k: 32, tbc: 1, rn: 8, stageC: false, layouts: LOOSE }));
    out.push(tiled({ dtype, bm: 32, bn: 32, tm: 4, tn: 4 }));
    // syrk's triangle of C (NT: A A^T, TN: A^T A), both triangles.
    out.push(tiled({ dtype, transB: 'T', triangle: 'lower', layouts: LOOSE }), tiled({ dtype, transA: 'T', triangle: 'upper', betaZero: true, layouts: LOOSE }));
    if (dtype === 'float64') {
      OPS.forEach(([transA, transB], o) => {
        out.push({ ...tiled({ transA, transB, betaZero: o % 2 === 0, layouts: o === 2 ? MIXED_PLAIN : LOOSE }), variant: 'mma', bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 1 + o } as GemmParams);
        // The largest warp tiles (64 x 32 and 32 x 64 of accumulators), every transpose.
        for (const betaZero of [false, true]) {
          out.push(planGemm(H100, problem({ transA, transB, m: 256, n: 256, k: 256, betaZero }), { variant: 'mma' }));
          out.push(planGemm(H100, problem({ transA, transB, m: 128, n: 128, k: 128, betaZero }), { variant: 'mma' }));
          out.push(planGemm(H100, problem({ transA, transB, m: 64, n: 64, k: 64, betaZero }), { variant: 'mma' }));
          out.push(planGemm(H100, problem({ transA, transB, m: 32, n: 32, k: 32, betaZero }), { variant: 'mma' }));
          // syrk's triangle of a large C (A A^T or A^T A: the NT and TN products).
          if (transA !== transB) out.push({ ...planGemm(H100, problem({ transA, transB, m: 2048, n: 2048, k: 128, betaZero }), { variant: 'mma' }), triangle: betaZero ? 'upper' : 'lower' });
        }
      });
      out.push({ ...tiled({ transA: 'T', transB: 'T' }), variant: 'mma', bm: 32, bn: 32, bk: 32, wm: 1, wn: 1, stages: 1 } as GemmParams);
      out.push({ ...tiled({}), variant: 'mma', bm: 128, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 } as GemmParams);
      // trmm side left in place (a triangular op(A)): the card's trmm tiles and others, both transposes and triangles, one buffer.
      const trmmTiles = tuningFor('sm_90', 'trsm').trmmProduct?.double?.tiles;
      const cardTiles = [...(trmmTiles?.N ?? []), ...(trmmTiles?.T ?? [])].map(({ config: c }) => [c.bm, c.bn, c.bk, c.wm, c.wn, c.stages]);
      for (const [i, config] of [...cardTiles, [64, 64, 16, 4, 2, 3], [64, 64, 8, 2, 2, 4], [64, 64, 16, 2, 2, 1]].entries()) {
        const [bm, bn, bk, wm, wn, stages] = config as [number, number, number, number, number, number];
        for (const transA of ['N', 'T'] as const) {
          out.push({ ...tiled({ transA, betaZero: true, layouts: i === 3 ? { a: pointer, b: pointer, c: pointer } : LOOSE }), variant: 'mma', bm, bn, bk, wm, wn, stages,
            triangularA: { lower: (i + (transA === 'T' ? 1 : 0)) % 2 === 0, unit: i % 2 === 1 } } as GemmParams);
        }
      }
      // syrk's triangle tiles on the card (the NT and TN products), every band, both triangles.
      for (const [op, bands] of Object.entries(tuningFor('sm_90', 'gemm').mmaTriangle ?? {})) {
        bands.forEach(({ config }, i) => {
          const [transA, transB] = op === 'N' ? ['N', 'T'] as const : ['T', 'N'] as const;
          out.push({ ...tiled({ transA, transB, betaZero: i % 2 === 0, layouts: i % 2 === 0 ? LOOSE : { a: pointer, b: pointer, c: pointer } }), variant: 'mma', ...config, triangle: i % 2 === 0 ? 'lower' : 'upper' } as GemmParams);
        });
      }
    }
    out.push(dtype === 'float64' ? tiled({ dtype, bm: 128, bn: 64, tm: 8, tn: 4 }) : tiled({ dtype, bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 }));
    if (dtype === 'float32') {
      // trmm side left in place on the tiled kernel: the sm_90 table's tiles, both transposes, every triangle.
      for (const [i, [bm, bn, bk, tm]] of [[32, 32, 16, 4], [48, 48, 16, 4], [64, 64, 16, 8], [64, 128, 8, 8]].entries()) {
        for (const transA of ['N', 'T'] as const) {
          out.push({ ...tiled({ dtype, transA, betaZero: true, bm: bm!, bn: bn!, bk: bk!, tm: tm!, tn: tm!, layouts: i === 1 ? { a: pointer, b: pointer, c: pointer } : LOOSE }),
            triangularA: { lower: (i + (transA === 'T' ? 1 : 0)) % 2 === 0, unit: i % 2 === 1 } });
        }
      }
    }
    if (dtype === 'float32') {
      OPS.forEach(([transA, transB], o) => {
        out.push(tiled({ dtype, transA, transB, bm: 128, bn: 128, bk: 16, tm: 8, tn: 8, betaZero: o % 2 === 0 }));
        for (const n of [64, 128, 256]) out.push(planGemm(H100, problem({ dtype, transA, transB, m: n, n, k: n, betaZero: o % 2 === 1 })));
      });
    }
    // Complex pairs (complex128, complex64): the planned small (16) and tiled (64) kernels of every op pair.
    for (const conjA of [false, true]) for (const conjB of [false, true]) OPS.forEach(([transA, transB], o) => {
      if ((conjA && transA === 'N') || (conjB && transB === 'N')) return;
      for (const n of [16, 64]) out.push(planGemm(H100, problem({ dtype, transA, transB, m: n, n, k: n, betaZero: o % 2 === 0, complex: { conjA, conjB } })));
    });
  });
  return out;
}

test('generated kernels compile for sm_90 with nvcc, without spills or local arrays', { skip: NVCC_SKIP }, async () => {
  // Representative: the small, tiled and mma designs once each (every transpose, layout and tile
  // size under MYRIAD_FULL_COMPILE=1).
  const quick = (e: string): boolean => /^(gemm_small_dNN_2x2x2_.*_ddd|gemm_tiled_sNN_128x128x8_|gemm_mma_dTT_64x64x16_w4x2_s3_k8_sss_b0$|gemm_small_zCC_16x16x16_|gemm_tiled_zCC_64x64x8_)|_t[lu]$|_ta[lu][nu]$/.test(e);
  const results = await compileForSm90(compileSet(representativeKernels().map(gemmSource), quick));
  const failures = compileFailures(results, (r) =>
    !Number.isFinite(r.registers) ? 'no ptxas report'
      : r.stackFrame !== 0 || r.spillStores !== 0 ? `stack ${r.stackFrame}, spill stores ${r.spillStores}` : undefined);
  assert.deepEqual(failures, [], failures.join('\n'));
});

