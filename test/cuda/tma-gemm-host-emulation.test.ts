/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the TMA gemm kernels
 * (kernels/gemm/generate-tma.ts) compiled as C++ for the host with the harness's copy engine,
 * mbarriers and mma (test/helpers/tma-gemm-host-harness.cpp: the 128-byte swizzle on shared
 * addresses, zeros outside the tensor, a phase per completed barrier), fed the tensor maps the
 * launcher encodes (tmaOperandMap), against the CPU reference: every op pair, ragged m, n, k,
 * batches, beta = 0 over NaN, several k-steps per buffer of the ring (phases wrap), a producer
 * warp and the first thread producing, tile groups, the m16n8k4 and m16n8k16 shapes, register double-buffered
 * fragments, persistent grids of fewer blocks than tiles; every element of C's buffer outside the matrices unchanged. A check of the design's indexing and its ring's protocol;
 * test/gpu/gemm-tma.test.ts is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { StridedBatch } from '../../src/core/batch.js';
import { DTYPE_EPS } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import { cpuGemm } from '../../src/cpu/blas3.js';
import { generateTmaGemm, tmaGemmShape, tmaOperandMap } from '../../src/cuda/kernels/gemm/generate-tma.js';
import type { TmaGemmParams } from '../../src/cuda/kernels/gemm/params.js';
import type { TmaConfig } from '../../src/cuda/model/tuning/index.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/tma-gemm-host-harness.cpp');
const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];
const SENTINEL = 12345.5;
const DECLARED = 'extern __shared__ __align__(16) unsigned char smem[];';

interface Case { config: TmaConfig; transA: Op; transB: Op; m: number; n: number; k: number; count: number; alpha: number; beta: number; ldPad: number; offset: number;
  /** C's layout: an even ld and offset take the epilogue's 16-byte path (rows 2g, 2g + 1 of A stored along m). */
  evenC: boolean }

const CONFIGS: readonly TmaConfig[] = [
  { bm: 128, bn: 128, wm: 2, wn: 4, stages: 4, tileGroup: 16 },
  { bm: 64, bn: 64, wm: 2, wn: 2, stages: 2 },
  { bm: 128, bn: 64, wm: 2, wn: 2, stages: 3, producerWarp: true },
  // The other f64 mma shapes, and persistent grids (fewer blocks than tiles: items and ring phases run on across tiles and matrices).
  { bm: 64, bn: 64, wm: 2, wn: 2, stages: 3, mmaK: 16 },
  { bm: 64, bn: 128, wm: 2, wn: 2, stages: 2, mmaK: 4, tileGroup: 2 },
  { bm: 64, bn: 64, wm: 2, wn: 2, stages: 3, producerWarp: true, persistent: true, tileGroup: 2 },
  { bm: 128, bn: 64, wm: 2, wn: 2, stages: 2, producerWarp: true, persistent: true, mmaK: 16 },
  // Register double-buffered fragments: thread 0 producing and a producer warp; 2 stages (the next
  // stage's wait right after its refill) and 3.
  { bm: 128, bn: 64, wm: 2, wn: 2, stages: 3, tileGroup: 2, pipelined: true },
  { bm: 64, bn: 64, wm: 2, wn: 2, stages: 2, producerWarp: true, pipelined: true },
];
/** The persistent grids' blocks on the host: fewer than the items, and not dividing them. */
const PERSISTENT_BLOCKS = 3;
const SHAPES: readonly (readonly [number, number, number, number])[] = [[130, 70, 40, 2], [70, 129, 100, 1], [33, 65, 70, 2]];

function strided(rows: number, cols: number, count: number, ldPad: number, offset: number, fill: () => number): StridedBatch<Float64Array> {
  const ld = rows + ldPad;
  const stride = ld * cols + 2;
  const data = Float64Array.from({ length: offset + count * stride + 2 }, fill);
  return { kind: 'strided', rows, cols, count, ld, stride, offset, order: 'col', data };
}

function runCase(dir: string, built: Set<string>, c: Case, rng: Rng): string {
  const p: TmaGemmParams = { variant: 'tma', dtype: 'float64', transA: c.transA, transB: c.transB, betaZero: c.beta === 0, layouts: { a: { kind: 'strided', dense: false }, b: { kind: 'strided', dense: false }, c: { kind: 'strided', dense: false } }, ...c.config };
  const src = generateTmaGemm(p);
  const exe = join(dir, src.entry);
  if (!built.has(exe)) {
    assert.ok(src.source.includes(DECLARED), 'the dynamic shared array is declared as the harness expects');
    writeFileSync(join(dir, 'kernel.cu'), src.source.replace(DECLARED, 'unsigned char* smem = g_smem;'));
    execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
    built.add(exe);
  }
  const [ar, ac] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [br, bc] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  const a = strided(ar, ac, c.count, c.ldPad, c.offset, () => rng.uniform());
  const b = strided(br, bc, c.count, c.ldPad, c.offset, () => rng.uniform());
  const cc = strided(c.m, c.n, c.count, c.evenC ? c.m % 2 : 1 - (c.m % 2), c.evenC ? 0 : 1, () => (c.beta === 0 ? NaN : SENTINEL));
  const inside = new Uint8Array(cc.data.length);
  for (let q = 0; q < c.count; q++) for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) {
    const e = cc.offset + q * cc.stride + i + j * cc.ld;
    inside[e] = 1;
    if (c.beta !== 0) cc.data[e] = rng.uniform();
  }
  const initial = cc.data.slice();
  const map = (x: StridedBatch<Float64Array>, which: 'a' | 'b'): string => {
    const d = tmaOperandMap(p, which, x, c.count);
    const data = x.data.subarray(x.offset);
    return `${d.dims.join(' ')} ${d.strides.join(' ')} ${d.box.join(' ')} ${data.length}\n${Array.from(data).join(' ')}`;
  };
  const input = [
    `${tmaGemmShape(p).threads} ${p.bm} ${p.bn} ${c.m} ${c.n} ${c.k} ${c.count} ${c.alpha} ${c.beta} ${p.persistent === true ? PERSISTENT_BLOCKS : 0}`,
    map(a, 'a'), map(b, 'b'),
    `${cc.offset} ${cc.stride} ${cc.ld} ${cc.data.length}\n${Array.from(cc.data, (v) => (Number.isNaN(v) ? 'nan' : String(v))).join(' ')}`,
  ].join('\n');
  const out = execFileSync(exe, { input, maxBuffer: 1 << 28, timeout: 300_000 }).toString().trim().split('\n').map(Number);
  assert.equal(out.length, cc.data.length);
  cpuGemm({ transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta, a, b, c: cc });
  const bound = { ...cc, data: initial.map((v) => (Number.isNaN(v) ? 0 : Math.abs(v))) };
  const abs = (x: StridedBatch<Float64Array>): StridedBatch<Float64Array> => ({ ...x, data: x.data.map(Math.abs) });
  cpuGemm({ transA: c.transA, transB: c.transB, alpha: Math.abs(c.alpha), beta: Math.abs(c.beta), a: abs(a), b: abs(b), c: bound });
  const tol = 4 * (c.k + 2) * DTYPE_EPS.float64;
  for (let e = 0; e < out.length; e++) {
    if (inside[e]) {
      if (!(Math.abs(out[e]! - cc.data[e]!) <= tol * bound.data[e]!)) return `element ${e}: got ${out[e]}, want ${cc.data[e]}`;
    } else if (!Object.is(out[e], initial[e])) {
      return `element ${e} outside every matrix changed: ${initial[e]} -> ${out[e]}`;
    }
  }
  return '';
}

test('tma gemm kernels on the host: every op pair, ragged sizes, the ring and its barriers', { skip, timeout: 1_800_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-tma-'));
  const rng = new Rng(23);
  const built = new Set<string>();
  const failures: string[] = [];
  try {
    const cases: Case[] = [];
    CONFIGS.forEach((config, ci) => OPS.forEach(([transA, transB], o) => {
      const [m, n, k, count] = SHAPES[(ci + o) % SHAPES.length]!;
      cases.push({ config, transA, transB, m, n, k, count, alpha: o % 2 ? -1 : 1.5, beta: (ci + o) % 2 ? 0 : 0.5, ldPad: (ci + o) % 2 ? 1 : 2, offset: 2 * (o % 2), evenC: (ci + o) % 3 !== 1 });
    }));
    cases.push({ config: CONFIGS[1]!, transA: 'N', transB: 'N', m: 1, n: 1, k: 1, count: 3, alpha: 2, beta: 0, ldPad: 1, offset: 0, evenC: true });
    for (const c of cases) {
      const why = runCase(dir, built, c, rng);
      if (why !== '') failures.push(`${c.transA}${c.transB} ${c.m}x${c.n}x${c.k} x${c.count} ${JSON.stringify(c.config)} beta ${c.beta}: ${why}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(failures, []);
});
