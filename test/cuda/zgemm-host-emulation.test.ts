/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex gemm kernels (the very-small
 * and tiled designs over `real2` pairs) as the launcher plans and launches them (complexGemmCuda on
 * a device that records the kernel, its launch and the pointer tables it uploads), compiled as C++
 * for the host (test/helpers/zgemm-host-harness.cpp) and run a thread per CUDA thread. Checked
 * against the complex reference (cpu/complex/zgemm.ts) for n in {1, 2, 3, 5, 8, 13, 16, 33, 64},
 * every pair of ops (N, T, C), beta = 0 over NaN-poisoned C (C must not be read), ragged leading
 * dimensions, gaps between matrices, strided and list batches: C within rounding, and every element
 * outside the C matrices unchanged. A check of the CUDA source without a GPU.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { ComplexOp, ComplexScalar } from '../../src/core/op-specs.js';
import { zgemm1 } from '../../src/cpu/complex/zgemm.js';
import { complexGemmCuda } from '../../src/cuda/kernels/gemm/index.js';
import type { DeviceArray, KernelArg } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine as operandLineOf, parseHarnessNumber, NO_MMA_CARD, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;

const HARNESS = resolve('test/helpers/zgemm-host-harness.cpp');
const SENTINEL = 12345.5;
const BASE = RECORDED_BASE;



interface Case {
  dtype: DType; transA: ComplexOp; transB: ComplexOp; m: number; n: number; k: number; count: number;
  alpha: ComplexScalar; beta: ComplexScalar; form: 'strided' | 'list';
}

const SIZES = [1, 2, 3, 5, 8, 13, 16, 33, 64];
const OPS: readonly ComplexOp[] = ['N', 'T', 'C'];

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const n of SIZES) for (const transA of OPS) for (const transB of OPS) {
    const zero = i % 2 === 0;
    out.push({
      dtype: 'float64', transA, transB, m: n, n, k: n, count: n >= 33 ? 2 : 3,
      alpha: [0.75, -1.25], beta: zero ? [0, 0] : [-0.5, 0.25], form: i % 3 === 2 ? 'list' : 'strided',
    });
    i++;
  }
  // complex64, rectangular shapes (m, n, k apart: the tiled kernel's edges), alpha = 0 (C := beta C).
  for (const [m, n, k] of [[3, 5, 2], [16, 16, 16], [33, 2, 17], [64, 40, 9]] as const) for (const [transA, transB] of [['C', 'N'], ['T', 'C'], ['N', 'T']] as const) {
    out.push({ dtype: 'float32', transA, transB, m, n, k, count: 3, alpha: [1.5, 0.5], beta: i % 2 === 0 ? [0, 0] : [0.25, -1], form: i % 3 === 0 ? 'list' : 'strided' });
    i++;
  }
  out.push({ dtype: 'float64', transA: 'C', transB: 'C', m: 7, n: 9, k: 4, count: 3, alpha: [0, 0], beta: [2, -1], form: 'strided' });
  out.push({ dtype: 'float64', transA: 'N', transB: 'C', m: 40, n: 24, k: 70, count: 2, alpha: [-1, 2], beta: [1, 0], form: 'list' });
  return out;
}

/** Where each matrix of the case lives in the buffer (complex elements), ld = rows + 0..2, gaps of 1..3. */
interface Layout { ld: number; offsets: number[] }

function place(rng: Rng, at: { next: number }, rows: number, cols: number, count: number): Layout {
  const ld = Math.max(1, rows + rng.int(0, 2));
  const offsets: number[] = [];
  for (let q = 0; q < count; q++) { offsets.push(at.next); at.next += ld * cols + rng.int(1, 3); }
  return { ld, offsets };
}

/** A batch over the buffer: strided where the matrices are evenly spaced (they are placed so for 'strided'), else a list. */
function batchOf(buffer: DeviceArray, l: Layout, rows: number, cols: number, form: Case['form'], dtype: 'complex128' | 'complex64'): Batch<DeviceArray> {
  if (form === 'list') return list(l.offsets.map((offset) => ({ data: buffer, offset })), { rows, cols, ld: l.ld, dtype });
  const stride = l.offsets.length > 1 ? l.offsets[1]! - l.offsets[0]! : l.ld * cols;
  return strided(buffer, { rows, cols, ld: l.ld, stride, offset: l.offsets[0]!, count: l.offsets.length, dtype });
}

/** Evenly spaced offsets for a strided batch (one gap for all). */
function placeStrided(rng: Rng, at: { next: number }, rows: number, cols: number, count: number): Layout {
  const ld = Math.max(1, rows + rng.int(0, 2));
  const stride = ld * cols + rng.int(1, 3);
  const offsets = Array.from({ length: count }, (_, q) => at.next + q * stride);
  at.next += stride * count;
  return { ld, offsets };
}

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

interface Prepared {
  c: Case; dir: string; exe: string; input: string; buf: Float64Array; inC: Uint8Array; len: number;
  layouts: { a: Layout; b: Layout; c: Layout }; entry: string; defines: string[];
}

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(1000 + index);
  const at = { next: 2 };
  const pl = c.form === 'list' ? place : placeStrided;
  const [ar, ac] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [br, bc] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  const layouts = { a: pl(rng, at, ar, ac, c.count), b: pl(rng, at, br, bc, c.count), c: pl(rng, at, c.m, c.n, c.count) };
  const len = at.next + 2;
  const buf = new Float64Array(2 * len).fill(SENTINEL);
  const inC = new Uint8Array(len);
  const fill = (l: Layout, rows: number, cols: number, value: () => number, mark: boolean): void => {
    for (const off of l.offsets) for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
      const e = off + i + j * l.ld;
      buf[2 * e] = value();
      buf[2 * e + 1] = value();
      if (mark) inC[e] = 1;
    }
  };
  const betaZero = c.beta[0] === 0 && c.beta[1] === 0;
  fill(layouts.a, ar, ac, () => round(c.dtype, rng.uniform() - 0.5), false);
  fill(layouts.b, br, bc, () => round(c.dtype, rng.uniform() - 0.5), false);
  fill(layouts.c, c.m, c.n, () => (betaZero ? NaN : round(c.dtype, rng.uniform() - 0.5)), true);

  // The launcher, on the recording device (tables without the tensor-core path: the harness runs the small and tiled designs).
  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded, NO_MMA_CARD);
  const elementBytes = c.dtype === 'float64' ? 16 : 8;
  const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: BASE, byteLength: len * elementBytes, disposed: false, dispose() {} };
  const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
  complexGemmCuda(dev, {
    transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta,
    a: batchOf(buffer, layouts.a, ar, ac, c.form, ctype), b: batchOf(buffer, layouts.b, br, bc, c.form, ctype), c: batchOf(buffer, layouts.c, c.m, c.n, c.form, ctype),
  });
  assert.equal(recorded.length, 1, 'one launch');
  const { src, config, args } = recorded[0]!;
  const tiled = /gemm_tiled_/.test(src.entry);
  const num = (a: KernelArg): number => Number(a.value);
  const operandLine = (o: number): { line: string; pointer: boolean } => operandLineOf(recorded[0]!, o, elementBytes);
  const ops = [0, 1, 2].map(operandLine);
  const scalars = args.slice(13, 17).map(num);
  const [gx, gy, gz] = config.grid;
  const [m, n, k] = tiled ? args.slice(17, 20).map(num) : [c.m, c.n, c.k];
  const input = [
    `${gx} ${gy} ${gz} ${config.block[0]} ${num(args[12]!)} ${m} ${n} ${k} ${len}`,
    scalars.join(' '),
    ...ops.map((o) => o.line),
    ...Array.from({ length: len }, (_, e) => `${buf[2 * e]} ${buf[2 * e + 1]}`),
  ].join('\n') + '\n';
  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), src.source.replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_smem;'));
  const defines = [`-DENTRY=${src.entry}`, ...(tiled ? ['-DTILED'] : []), ...ops.flatMap((o, i) => (o.pointer ? [`-DP${'ABC'[i]}`] : []))];
  return { c, dir, exe: join(dir, 'h'), input, buf, inC, len, layouts, entry: src.entry, defines };
}

function check(p: Prepared, out: string): void {
  const { c, buf, inC, len, layouts } = p;
  const nums = out.trim().split(/\s+/).map(parseHarnessNumber);
  assert.equal(nums.length, 2 * len, `${p.entry}: the buffer back`);
  for (let e = 0; e < len; e++) {
    if (inC[e] === 1) continue;
    assert.ok(Object.is(nums[2 * e], buf[2 * e]) && Object.is(nums[2 * e + 1], buf[2 * e + 1]), `${p.entry}: element ${e} outside every C changed`);
  }
  // The reference on a copy (NaN in C where beta = 0 must not show).
  const want = buf.slice();
  for (let q = 0; q < c.count; q++) {
    zgemm1(c.transA, c.transB, c.m, c.n, c.k, c.alpha, buf, layouts.a.offsets[q]!, layouts.a.ld, buf, layouts.b.offsets[q]!, layouts.b.ld, c.beta, want, layouts.c.offsets[q]!, layouts.c.ld);
  }
  const eps = DTYPE_EPS[c.dtype];
  const scale = (Math.hypot(...c.alpha) * c.k + Math.hypot(...c.beta)) * 2;
  for (let q = 0; q < c.count; q++) for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) {
    const e = layouts.c.offsets[q]! + i + j * layouts.c.ld;
    for (const part of [0, 1]) {
      const g = nums[2 * e + part]!, w = want[2 * e + part]!;
      assert.ok(Number.isFinite(g), `${p.entry}: matrix ${q} C(${i}, ${j}) part ${part} = ${g}`);
      assert.ok(Math.abs(g - w) <= 8 * eps * scale + 1e-300, `${p.entry}: matrix ${q} C(${i}, ${j}) part ${part} = ${g}, want ${w}`);
    }
  }
}

describe('complex gemm kernels run on the host', { skip, timeout: 1_800_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zgemm-')) : '';
  const prepared = skip === undefined ? cases().map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of cases().entries()) {
    it(`${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.transA}${c.transB} ${c.m}x${c.n}x${c.k} ${c.form} beta [${c.beta}]`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
