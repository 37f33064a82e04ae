/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the real gemm kernel of the tiled design
 * with each tile of the sm_90 table's float32 tiles by padding (`tiledByPadding`), launched as
 * gemmCuda launches it (a recording device keeps the kernel, its launch and the pointer tables it
 * uploads), compiled as C++ for the host (test/helpers/gemm-tiled-host-harness.cpp) and run a thread
 * per CUDA thread. Every pair of ops, C's sides past a tile's edge and past several tiles, k past
 * several k-steps and below one, beta = 0 over NaN-poisoned C (C must not be read), ragged leading
 * dimensions, gaps between matrices, strided and list batches. Checked against a plain triple loop:
 * C within rounding, every element outside the C matrices unchanged. A check of the CUDA source
 * without a GPU.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import { gemmCuda } from '../../src/cuda/kernels/gemm/index.js';
import { tuningFor, type TiledConfig } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray, KernelArg } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/gemm-tiled-host-harness.cpp');
const SENTINEL = 12345.5;
const SM90 = tuningFor('sm_90', 'gemm');
const TILES: readonly TiledConfig[] = (SM90.tiledByPadding?.float32?.tiles ?? []).map((t) => t.config);
const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];

interface Case { dtype: DType; tile: TiledConfig; transA: Op; transB: Op; m: number; n: number; k: number; count: number; alpha: number; beta: number; form: 'strided' | 'list' }

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const tile of TILES) for (const [transA, transB] of OPS) {
    // Past one tile's edge in both sides (the padding the plan weighs), then several tiles with a k below one k-step.
    for (const [m, n, k] of [[tile.bm + 1, tile.bn - 7, 2 * tile.bk + 3], [Math.min(2 * tile.bm + 5, 140), 33, 5]] as const) {
      out.push({ dtype: 'float32', tile, transA, transB, m, n, k, count: 2, alpha: -1.25, beta: i % 2 === 0 ? 0 : 0.5, form: i % 3 === 2 ? 'list' : 'strided' });
      i++;
    }
  }
  return out;
}

interface Layout { ld: number; offsets: number[] }

/** count matrices of rows x cols at ld = rows + 0..2; strided: evenly spaced (one gap), list: gaps of 1..3. */
function place(rng: Rng, at: { next: number }, rows: number, cols: number, count: number, form: Case['form']): Layout {
  const ld = Math.max(1, rows + rng.int(0, 2));
  const stride = ld * cols + rng.int(1, 3);
  const offsets: number[] = [];
  for (let q = 0; q < count; q++) { offsets.push(at.next); at.next += form === 'strided' ? stride : ld * cols + rng.int(1, 3); }
  return { ld, offsets };
}

function batchOf(buffer: DeviceArray, l: Layout, rows: number, cols: number, form: Case['form']): Batch<DeviceArray> {
  if (form === 'list') return list(l.offsets.map((offset) => ({ data: buffer, offset })), { rows, cols, ld: l.ld });
  const stride = l.offsets.length > 1 ? l.offsets[1]! - l.offsets[0]! : l.ld * cols;
  return strided(buffer, { rows, cols, ld: l.ld, stride, offset: l.offsets[0]!, count: l.offsets.length });
}

interface Prepared { c: Case; dir: string; exe: string; input: string; buf: Float64Array; inC: Uint8Array; layouts: { a: Layout; b: Layout; c: Layout }; entry: string; defines: string[] }

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(2000 + index);
  const at = { next: 2 };
  const [ar, ac] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [br, bc] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  const layouts = { a: place(rng, at, ar, ac, c.count, c.form), b: place(rng, at, br, bc, c.count, c.form), c: place(rng, at, c.m, c.n, c.count, c.form) };
  const len = at.next + 2;
  const buf = new Float64Array(len).fill(SENTINEL);
  const inC = new Uint8Array(len);
  const fill = (l: Layout, rows: number, cols: number, value: () => number, mark: boolean): void => {
    for (const off of l.offsets) for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
      buf[off + i + j * l.ld] = value();
      if (mark) inC[off + i + j * l.ld] = 1;
    }
  };
  fill(layouts.a, ar, ac, () => Math.fround(rng.uniform() - 0.5), false);
  fill(layouts.b, br, bc, () => Math.fround(rng.uniform() - 0.5), false);
  fill(layouts.c, c.m, c.n, () => (c.beta === 0 ? NaN : Math.fround(rng.uniform() - 0.5)), true);

  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: len, device: 0, ptr: RECORDED_BASE, byteLength: len * 4, disposed: false, dispose() {} };
  // The tile forced through the tuning table, as the plan takes it (the tiled bands' one band; no tiles by padding).
  const tuning = { ...SM90, tiledByPadding: undefined, tiled: { ...SM90.tiled, float32: [{ maxDim: Infinity, config: c.tile }] } };
  gemmCuda(dev, {
    transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta,
    a: batchOf(buffer, layouts.a, ar, ac, c.form), b: batchOf(buffer, layouts.b, br, bc, c.form), c: batchOf(buffer, layouts.c, c.m, c.n, c.form),
  }, { variant: 'tiled', tuning });
  assert.equal(recorded.length, 1, 'one launch');
  const { src, config, args } = recorded[0]!;
  assert.match(src.entry, new RegExp(`^gemm_tiled_s${c.transA}${c.transB}_${c.tile.bm}x${c.tile.bn}x${c.tile.bk}_t${c.tile.tm}x${c.tile.tn}_`), 'the forced tile');
  const num = (a: KernelArg): number => Number(a.value);
  const ops = [0, 1, 2].map((o) => operandLine(recorded[0]!, o, 4));
  const [gx, gy, gz] = config.grid;
  const input = [
    `${gx} ${gy} ${gz} ${config.block[0]} ${num(args[12]!)} ${args.slice(15, 18).map(num).join(' ')} ${len}`,
    args.slice(13, 15).map(num).join(' '),
    ...ops.map((o) => o.line),
    ...Array.from(buf, (x) => `${x}`),
  ].join('\n') + '\n';
  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), src.source.replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_smem;'));
  const defines = [`-DENTRY=${src.entry}`, ...ops.flatMap((o, i) => (o.pointer ? [`-DP${'ABC'[i]}`] : []))];
  return { c, dir, exe: join(dir, 'h'), input, buf, inC, layouts, entry: src.entry, defines };
}

function check(p: Prepared, out: string): void {
  const { c, buf, inC, layouts } = p;
  const got = out.trim().split(/\s+/).map(parseHarnessNumber);
  assert.equal(got.length, buf.length, `${p.entry}: the buffer back`);
  for (let e = 0; e < buf.length; e++) {
    if (inC[e] === 0) assert.ok(Object.is(got[e], buf[e]), `${p.entry}: element ${e} outside every C changed`);
  }
  const at = (l: Layout, q: number, i: number, j: number): number => buf[l.offsets[q]! + i + j * l.ld]!;
  const eps = DTYPE_EPS[c.dtype];
  for (let q = 0; q < c.count; q++) for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) {
    let sum = 0, abs = 0;
    for (let p = 0; p < c.k; p++) {
      const x = c.transA === 'N' ? at(layouts.a, q, i, p) : at(layouts.a, q, p, i);
      const y = c.transB === 'N' ? at(layouts.b, q, p, j) : at(layouts.b, q, j, p);
      sum += x * y;
      abs += Math.abs(x * y);
    }
    const c0 = c.beta === 0 ? 0 : at(layouts.c, q, i, j);
    const want = c.alpha * sum + c.beta * c0;
    const g = got[layouts.c.offsets[q]! + i + j * layouts.c.ld]!;
    const bound = 4 * (c.k + 2) * eps * (Math.abs(c.alpha) * abs + Math.abs(c.beta * c0)) + 1e-30;
    assert.ok(Number.isFinite(g) && Math.abs(g - want) <= bound, `${p.entry}: matrix ${q} C(${i}, ${j}) = ${g}, want ${want}`);
  }
}

describe('the tiled gemm kernel on the sm_90 float32 tiles by padding runs on the host', { skip, timeout: 1_800_000 }, () => {
  assert.ok(skip !== undefined || TILES.length > 0, 'the card\'s table lists float32 tiles by padding');
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-gemm-tiled-')) : '';
  const prepared = skip === undefined ? cases().map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of cases().entries()) {
    it(`${c.tile.bm}x${c.tile.bn}x${c.tile.bk} t${c.tile.tm}x${c.tile.tn} ${c.transA}${c.transB} ${c.m}x${c.n}x${c.k} ${c.form} beta ${c.beta}`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
