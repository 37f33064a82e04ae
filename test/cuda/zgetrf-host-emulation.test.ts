/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex LU kernels (complex-lu/:
 * zgetrf, zgetrs 'N' / 'T' / 'C', zgesv) as their launchers plan and launch them (on a device that
 * records the kernel, its launch and the pointer tables it uploads), compiled as C++ for the host
 * (test/helpers/zlu-host-harness.cpp) and run a thread per CUDA thread. Against the complex
 * reference (cpu/complex/), both element types, n from 1 to 32, rectangular getrf, strided and list
 * batches with ragged leading dimensions and gaps, batches that mix random, singular (a zero column),
 * NaN and tied-pivot matrices:
 * - getrf: info and pivots exactly the reference's, the factors to rounding (NaN where it has NaN),
 *   ||P A - L U|| / (||A|| n eps) small;
 * - getrs: info 0, ||op(A) X - B|| / (||A|| ||X|| n eps) small;
 * - gesv: info and pivots as the reference's, a failing matrix's B unchanged bit for bit, the
 *   others' residuals small; more right-hand sides than a pass takes.
 * Every element outside the matrices must come back bit for bit. The plan's step at each order (the
 * group step to 16 rows, the warp step from 17) and the other one forced at a few. A check of the
 * CUDA source without a GPU.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import type { Storage } from '../../src/core/storage.js';
import { cpuGetrfComplex } from '../../src/cpu/complex/zgetrf.js';
import { cpuGesvComplex } from '../../src/cpu/complex/zsolve.js';
import { complexGesvCuda, complexGetrfCuda, complexGetrsCuda, type ComplexLuForce } from '../../src/cuda/kernels/complex-lu/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { random, zeros, type Z } from '../helpers/complex.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine as operandLineOf, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';
import { hasNaN, kindOf, luMatrix, luResidual, solveResidual } from '../helpers/zlu-data.js';

const skip = HOST_EMULATION_SKIP;

const HARNESS = resolve('test/helpers/zlu-host-harness.cpp');
const SENTINEL = 12345.5;
const BASE = RECORDED_BASE;
const PIV = 0x2000000n, INFO = 0x3000000n;
/** Residual ratios below this pass (LAPACK's testers use 30). */
const THRESHOLD = 30;



type Op = 'getrf' | 'getrs' | 'gesv';
interface Case { op: Op; dtype: DType; rows: number; cols: number; nrhs: number; trans: ComplexOp; count: number; form: 'strided' | 'list'; force?: ComplexLuForce }

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  const form = (): Case['form'] => (i++ % 3 === 2 ? 'list' : 'strided');
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 24, 31, 32]) out.push({ op: 'getrf', dtype, rows: n, cols: n, nrhs: 0, trans: 'N', count: 8, form: form() });
    for (const [rows, cols] of [[32, 7], [5, 32], [9, 4], [3, 17]] as const) out.push({ op: 'getrf', dtype, rows, cols, nrhs: 0, trans: 'N', count: 4, form: form() });
    for (const trans of ['N', 'T', 'C'] as const) for (const [n, nrhs] of [[1, 2], [5, 3], [12, 6], [32, 5]] as const) {
      out.push({ op: 'getrs', dtype, rows: n, cols: n, nrhs, trans, count: 3, form: form() });
    }
    for (const [n, nrhs] of [[1, 1], [3, 9], [8, 4], [16, 6], [23, 1], [32, 5]] as const) out.push({ op: 'gesv', dtype, rows: n, cols: n, nrhs, trans: 'N', count: 8, form: form() });
    // The step the plan does not take at these orders, forced: the group step from 17 rows, the warp
    // step below (idle lanes), and the warp step with rows < cols.
    const group = { step: 'group' } as const, warp = { step: 'warp', warps: 1 } as const;
    out.push({ op: 'getrf', dtype, rows: 32, cols: 32, nrhs: 0, trans: 'N', count: 8, form: form(), force: group });
    out.push({ op: 'gesv', dtype, rows: 24, cols: 24, nrhs: 6, trans: 'N', count: 8, form: form(), force: group });
    out.push({ op: 'getrf', dtype, rows: 5, cols: 5, nrhs: 0, trans: 'N', count: 8, form: form(), force: warp });
    out.push({ op: 'getrf', dtype, rows: 17, cols: 32, nrhs: 0, trans: 'N', count: 4, form: form() });
    out.push({ op: 'gesv', dtype, rows: 9, cols: 9, nrhs: 5, trans: 'N', count: 8, form: form(), force: warp });
    out.push({ op: 'getrf', dtype, rows: 27, cols: 27, nrhs: 0, trans: 'N', count: 8, form: form(), force: { reciprocalCall: true } });
    // gesv solving after the LU: the warp step with one pass and with several, the group step.
    out.push({ op: 'gesv', dtype, rows: 32, cols: 32, nrhs: 1, trans: 'N', count: 8, form: form(), force: { solveAfter: true } });
    out.push({ op: 'gesv', dtype, rows: 19, cols: 19, nrhs: 6, trans: 'N', count: 8, form: form(), force: { solveAfter: true, warps: 1 } });
    out.push({ op: 'gesv', dtype, rows: 11, cols: 11, nrhs: 3, trans: 'N', count: 8, form: form(), force: { solveAfter: true } });
    // The warp step's L2 prefetch (no-op on the host: its kernels' other text, and pointer forms).
    out.push({ op: 'getrf', dtype, rows: 30, cols: 30, nrhs: 0, trans: 'N', count: 8, form: form(), force: { prefetchWarps: 10 } });
    out.push({ op: 'gesv', dtype, rows: 21, cols: 21, nrhs: 5, trans: 'N', count: 8, form: form(), force: { prefetchWarps: 12, solveAfter: true } });
  }
  return out;
}

/** Where each matrix lies in the buffer (pairs): ld = rows + 0..2, gaps of 1..3 (evenly spaced when strided). */
interface Layout { ld: number; offsets: number[] }
function place(rng: Rng, at: { next: number }, rows: number, cols: number, count: number, form: Case['form']): Layout {
  const ld = Math.max(1, rows + rng.int(0, 2));
  const offsets: number[] = [];
  const stride = ld * cols + rng.int(1, 3);
  for (let q = 0; q < count; q++) { offsets.push(at.next); at.next += form === 'strided' ? stride : ld * cols + rng.int(1, 3); }
  return { ld, offsets };
}
function batchOf<S extends Float64Array | DeviceArray>(buffer: S, l: Layout, rows: number, cols: number, form: Case['form'], dtype: 'complex128' | 'complex64'): Batch<S> {
  const data = buffer as unknown as Storage;
  if (form === 'list') return list(l.offsets.map((offset) => ({ data, offset })), { rows, cols, ld: l.ld, dtype }) as unknown as Batch<S>;
  const stride = l.offsets.length > 1 ? l.offsets[1]! - l.offsets[0]! : l.ld * cols;
  return strided(data, { rows, cols, ld: l.ld, stride, offset: l.offsets[0]!, count: l.offsets.length, dtype }) as unknown as Batch<S>;
}
const read = (buf: Float64Array, l: Layout, q: number, rows: number, cols: number): Z => {
  const z = zeros(rows, cols);
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
    const e = l.offsets[q]! + i + j * l.ld;
    z.d[2 * (i + j * rows)] = buf[2 * e]!;
    z.d[2 * (i + j * rows) + 1] = buf[2 * e + 1]!;
  }
  return z;
};
const write = (buf: Float64Array, l: Layout, q: number, z: Z, mark: Uint8Array): void => {
  for (let j = 0; j < z.cols; j++) for (let i = 0; i < z.rows; i++) {
    const e = l.offsets[q]! + i + j * l.ld;
    buf[2 * e] = z.d[2 * (i + j * z.rows)]!;
    buf[2 * e + 1] = z.d[2 * (i + j * z.rows) + 1]!;
    mark[e] = 1;
  }
};

interface Prepared {
  c: Case; dir: string; exe: string; input: string; defines: string[]; entry: string;
  /** The buffer before the run, and the expected one from the reference (NaN-aware comparison per matrix). */
  before: Float64Array; want: Float64Array; inside: Uint8Array; len: number;
  la: Layout; lb: Layout | null; a0: Z[]; b0: Z[]; refPiv: Int32Array; refInfo: Int32Array; k: number;
}

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(4000 + index);
  const round = (x: number): number => (c.dtype === 'float32' ? Math.fround(x) : x);
  const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const at = { next: 3 };
  const la = place(rng, at, c.rows, c.cols, c.count, c.form);
  const lb = c.op === 'getrf' ? null : place(rng, at, c.rows, c.nrhs, c.count, c.form === 'list' ? 'strided' : 'list');
  const len = at.next + 2;
  const before = new Float64Array(2 * len).fill(SENTINEL);
  const inside = new Uint8Array(len);
  const k = Math.min(c.rows, c.cols);
  const a0 = Array.from({ length: c.count }, (_, q) => luMatrix(rng, c.rows, c.cols, c.op === 'getrs' ? 'random' : kindOf(q), q + index, round));
  const b0 = lb === null ? [] : Array.from({ length: c.count }, () => { const b = random(rng, c.rows, c.nrhs); b.d.forEach((v, e) => { b.d[e] = round(v); }); return b; });
  const refPiv = new Int32Array(c.count * k), refInfo = new Int32Array(c.count);
  if (c.op === 'getrs') {
    // The factors (and pivots) the kernel reads: the reference's, rounded to the element type.
    a0.forEach((a, q) => write(before, la, q, a, inside));
    cpuGetrfComplex({ a: batchOf(before, la, c.rows, c.cols, c.form, 'complex128'), ipiv: refPiv, pivotStride: k, info: refInfo });
    for (let e = 0; e < before.length; e++) before[e] = round(before[e]!);
  } else {
    a0.forEach((a, q) => write(before, la, q, a, inside));
  }
  if (lb !== null) b0.forEach((b, q) => write(before, lb, q, b, inside));
  const want = before.slice();
  if (c.op === 'getrf') cpuGetrfComplex({ a: batchOf(want, la, c.rows, c.cols, c.form, 'complex128'), ipiv: refPiv, pivotStride: k, info: refInfo });
  if (c.op === 'gesv') cpuGesvComplex({ a: batchOf(want, la, c.rows, c.cols, c.form, 'complex128'), b: batchOf(want, lb!, c.rows, c.nrhs, c.form === 'list' ? 'strided' : 'list', 'complex128'), ipiv: refPiv, pivotStride: k, info: refInfo });

  // The launcher, on the recording device.
  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const bytes = c.dtype === 'float64' ? 16 : 8;
  const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: BASE, byteLength: len * bytes, disposed: false, dispose() {} };
  const ints = (ptr: bigint, length: number): DeviceArray => ({ kind: 'device', dtype: 'int32', length, device: 0, ptr, byteLength: 4 * length, disposed: false, dispose() {} });
  const a = batchOf(buffer, la, c.rows, c.cols, c.form, ctype);
  const b = lb === null ? null : batchOf(buffer, lb, c.rows, c.nrhs, c.form === 'list' ? 'strided' : 'list', ctype);
  const ipiv = ints(PIV, Math.max(1, c.count * k)), info = ints(INFO, c.count);
  const options = c.force === undefined ? {} : { force: c.force };
  if (c.op === 'getrf') complexGetrfCuda(dev, { a, ipiv, pivotStride: k, info }, options);
  else if (c.op === 'getrs') complexGetrsCuda(dev, { trans: c.trans, a, b: b!, ipiv, pivotStride: k, info });
  else complexGesvCuda(dev, { a, b: b!, ipiv, pivotStride: k, info }, options);
  assert.equal(recorded.length, 1, 'one launch');
  const { src, config } = recorded[0]!;
  const operandLine = (o: number): { line: string; pointer: boolean } => operandLineOf(recorded[0]!, o, bytes);
  const ops = (c.op === 'getrf' ? [0] : [0, 1]).map(operandLine);
  const pivots = c.op === 'getrs' ? refPiv : new Int32Array(c.count * k).fill(-5);
  const input = [
    `${config.grid[0]} ${config.block[0]} ${c.count} ${len} ${c.count * k} ${k}`,
    ...ops.map((o) => o.line),
    ...(c.op === 'getrf' ? [] : [String(c.nrhs)]),
    ...Array.from({ length: len }, (_, e) => `${before[2 * e]} ${before[2 * e + 1]}`),
    ...Array.from(pivots, String),
  ].join('\n') + '\n';
  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const defines = [`-DENTRY=${src.entry}`, ...(c.op === 'getrf' ? [] : ['-DSOLVE']), ...ops.flatMap((o, i) => (o.pointer ? [`-DP${'AB'[i]}`] : []))];
  return { c, dir, exe: join(dir, 'h'), input, defines, entry: src.entry, before, want, inside, len, la, lb, a0, b0, refPiv, refInfo, k };
}

function check(p: Prepared, out: string): void {
  const { c, len, k } = p;
  const lines = out.trim().split('\n');
  assert.equal(lines.length, len + c.count * k + c.count, `${p.entry}: the buffer, pivots and infos back`);
  const got = new Float64Array(2 * len);
  for (let e = 0; e < len; e++) {
    const [x, y] = lines[e]!.split(' ').map(parseHarnessNumber);
    got[2 * e] = x!; got[2 * e + 1] = y!;
  }
  const piv = Int32Array.from(lines.slice(len, len + c.count * k), Number);
  const info = Int32Array.from(lines.slice(len + c.count * k), Number);
  for (let e = 0; e < len; e++) {
    if (p.inside[e] === 1) continue;
    assert.ok(Object.is(got[2 * e], p.before[2 * e]) && Object.is(got[2 * e + 1], p.before[2 * e + 1]), `${p.entry}: pair ${e} outside every matrix changed`);
  }
  const eps = c.dtype === 'float64' ? 2 ** -53 : 2 ** -24;
  const what = `${p.entry} (${c.form})`;
  if (c.op === 'getrs') assert.deepEqual([...info], new Array<number>(c.count).fill(0), `${what}: info`);
  else {
    assert.deepEqual([...info], [...p.refInfo], `${what}: info`);
    assert.deepEqual([...piv], [...p.refPiv], `${what}: pivots`);
  }
  for (let q = 0; q < c.count; q++) {
    if (c.op !== 'getrs') {
      // The factors: as the reference's to rounding, NaN exactly where it has NaN.
      const lu = read(got, p.la, q, c.rows, c.cols), ref = read(p.want, p.la, q, c.rows, c.cols);
      const scale = Math.max(1, ...ref.d.filter((v) => !Number.isNaN(v)).map(Math.abs));
      const tol = 64 * Math.max(c.rows, c.cols) * eps * scale;
      ref.d.forEach((w, e) => {
        const g = lu.d[e]!;
        assert.ok(Number.isNaN(w) ? Number.isNaN(g) : Math.abs(g - w) <= tol, `${what}: matrix ${q} (${kindOf(q)}) factor part ${e}: ${g}, want ${w}`);
      });
      if (!hasNaN(p.a0[q]!)) {
        const r = luResidual(p.a0[q]!, lu, piv, q * k, eps);
        assert.ok(r < THRESHOLD, `${what}: matrix ${q} residual ratio ${r}`);
      }
    }
    if (c.op === 'getrf') continue;
    const x = read(got, p.lb!, q, c.rows, c.nrhs);
    if (c.op === 'gesv' && p.refInfo[q] !== 0) {
      assert.deepEqual([...x.d], [...p.b0[q]!.d], `${what}: matrix ${q} failed (info ${p.refInfo[q]}): B unchanged`);
      continue;
    }
    if (hasNaN(p.a0[q]!)) {
      assert.ok(hasNaN(x), `${what}: matrix ${q} holds a NaN: so does its X`);
      continue;
    }
    const r = solveResidual(p.a0[q]!, c.trans, x, p.b0[q]!, eps);
    assert.ok(r < THRESHOLD, `${what}: matrix ${q} solve residual ratio ${r}`);
  }
}

describe('complex LU kernels run on the host', { skip, timeout: 1_800_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zlu-')) : '';
  const prepared = skip === undefined ? cases().map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of cases().entries()) {
    const t = c.op === 'getrs' ? ` '${c.trans}'` : '';
    const forced = c.force === undefined ? '' : `, forced ${JSON.stringify(c.force)}`;
    it(`${c.op}${t} ${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.rows}x${c.cols}${c.nrhs ? `, nrhs ${c.nrhs}` : ''}, ${c.count} ${c.form}${forced}`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
