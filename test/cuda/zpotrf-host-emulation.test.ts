/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex Cholesky kernels (zpotrf,
 * zpotrs, zposv; complex128 and complex64, lower and upper) as their launchers plan and launch them
 * (on a device that records the kernel, its launch and the pointer tables it uploads), compiled as
 * C++ for the host (test/helpers/zpotrf-host-harness.cpp) and run a thread per CUDA thread. Checked
 * against the complex reference (cpu/complex/zpotrf.ts, zsolve.ts) on one buffer holding every
 * matrix, strided (ld > n, gaps, an offset) and list batches:
 * - info exactly, for Hermitian positive definite matrices mixed with ones that fail at a chosen
 *   step (a negative diagonal) or through NaN in their triangle, and with NaN in the diagonal's
 *   imaginary parts and in the triangle not referenced (both never read);
 * - every element the reference leaves unchanged (outside the matrices, the other triangle, past a
 *   failing column, a failed posv's B) bitwise unchanged;
 * - the rest within 64 n eps of the output's largest magnitude (normwise backward error of the
 *   Cholesky and of the substitutions, c n eps, times the condition number of B B^H + n I, below 4
 *   for B's entries in the unit square at these orders); NaN exactly where the reference has it.
 * potrs takes factors with complex diagonals (the reference divides by them as stored).
 * A check of the CUDA source without a GPU.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { Storage } from '../../src/core/storage.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuPotrfComplex } from '../../src/cpu/complex/zpotrf.js';
import { cpuPosvComplex, cpuPotrsComplex } from '../../src/cpu/complex/zsolve.js';
import { complexPosvCuda, complexPotrfCuda, complexPotrsCuda } from '../../src/cuda/kernels/zpotrf/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { get, randomHpd, type Z } from '../helpers/complex.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine as operandLineOf, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;

const HARNESS = resolve('test/helpers/zpotrf-host-harness.cpp');
const SENTINEL = 12345.5;
const BASE = RECORDED_BASE;



type Op = 'potrf' | 'potrs' | 'posv';
interface Case { op: Op; dtype: DType; uplo: Uplo; n: number; nrhs: number; count: number; form: 'strided' | 'list' }

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const op of ['potrf', 'posv', 'potrs'] as const) for (const n of [1, 2, 5, 8, 13, 16, 17, 32]) {
    const dtype: DType = i % 2 === 0 ? 'float64' : 'float32';
    const uplo: Uplo = (i >> 1) % 2 === 0 ? 'lower' : 'upper';
    out.push({ op, dtype, uplo, n, nrhs: op === 'potrf' ? 0 : [1, 3, 6][i % 3]!, count: n >= 16 ? 5 : 9, form: i % 3 === 1 ? 'list' : 'strided' });
    i++;
  }
  // The other dtype and triangle at the largest order.
  for (const op of ['potrf', 'posv', 'potrs'] as const) out.push({ op, dtype: 'float32', uplo: 'upper', n: 32, nrhs: 5, count: 4, form: 'list' });
  out.push({ op: 'posv', dtype: 'float64', uplo: 'upper', n: 24, nrhs: 9, count: 4, form: 'strided' });
  return out;
}

interface Layout { ld: number; offsets: number[] }

/** Offsets of `count` matrices: evenly spaced (strided) or with irregular gaps (list). */
function place(rng: Rng, at: { next: number }, rows: number, cols: number, count: number, form: Case['form']): Layout {
  const ld = rows + rng.int(1, 2);
  const stride = ld * cols + rng.int(1, 3);
  const offsets: number[] = [];
  for (let q = 0; q < count; q++) {
    offsets.push(at.next);
    at.next += form === 'strided' ? stride : ld * cols + rng.int(1, 3);
  }
  return { ld, offsets };
}

function batchOf<S extends Storage>(data: S, l: Layout, rows: number, cols: number, form: Case['form'], dtype: 'complex128' | 'complex64'): Batch<S> {
  if (form === 'list') return list(l.offsets.map((offset) => ({ data, offset })), { rows, cols, ld: l.ld, dtype });
  const stride = l.offsets.length > 1 ? l.offsets[1]! - l.offsets[0]! : l.ld * cols;
  return strided(data, { rows, cols, ld: l.ld, stride, offset: l.offsets[0]!, count: l.offsets.length, dtype });
}

/** Whether (i, j) is in the `uplo` triangle. */
const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

interface Prepared { c: Case; dir: string; exe: string; input: string; buf: Float64Array; want: Float64Array; wantInfo: Int32Array; len: number; entry: string; defines: string[]; outputs: Layout[] }

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(4000 + index);
  const at = { next: 3 };
  const la = place(rng, at, c.n, c.n, c.count, c.form);
  const lb = place(rng, at, c.n, Math.max(1, c.nrhs), c.count, c.form);
  const len = at.next + 2;
  const buf = new Float64Array(2 * len).fill(SENTINEL);
  const put = (e: number, re: number, im: number): void => { buf[2 * e] = round(c.dtype, re); buf[2 * e + 1] = round(c.dtype, im); };
  for (let q = 0; q < c.count; q++) {
    const h: Z = randomHpd(rng, c.n);
    let m = h;
    if (c.op === 'potrs') {
      // A factor: the reference's Cholesky of h, its diagonal turned complex (potrs divides by it as stored).
      const w = Float64Array.from(h.d);
      cpuPotrfComplex({ uplo: c.uplo, a: strided(w, { rows: c.n, cols: c.n, count: 1, dtype: 'complex128' }), info: new Int32Array(1) });
      for (let i = 0; i < c.n; i++) w[2 * (i + i * c.n) + 1] = 0.25 * w[2 * (i + i * c.n)]! * (q % 2 === 0 ? 1 : -1);
      m = { rows: c.n, cols: c.n, d: w };
    }
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
      const e = la.offsets[q]! + i + j * la.ld;
      // The triangle not referenced: NaN (a read shows).
      if (!inTriangle(c.uplo, i, j)) { put(e, NaN, NaN); continue; }
      const [re, im] = get(m, i, j);
      put(e, re, i === j && c.op !== 'potrs' ? NaN : im);   // the diagonal's imaginary part is never read by potrf
    }
    if (c.op !== 'potrs') {
      const k = Math.floor(c.n / 2);
      if (q % 4 === 1) put(la.offsets[q]! + k + k * la.ld, -1, 0);   // not positive definite at step k
      if (q % 4 === 3) {
        // NaN in the triangle: at (i, j), i > j of the factor (the diagonal where n = 1).
        const [i, j] = c.n === 1 ? [0, 0] : [c.n - 1, k === c.n - 1 ? 0 : k];
        const e = la.offsets[q]! + (c.uplo === 'lower' ? i + j * la.ld : j + i * la.ld);
        buf[2 * e] = NaN;
      }
    }
    for (let j = 0; j < c.nrhs; j++) for (let i = 0; i < c.n; i++) put(lb.offsets[q]! + i + j * lb.ld, rng.uniform(-1, 1), rng.uniform(-1, 1));
  }

  // The launcher, on the recording device.
  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const elementBytes = c.dtype === 'float64' ? 16 : 8;
  const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: BASE, byteLength: len * elementBytes, disposed: false, dispose() {} };
  const info: DeviceArray = { kind: 'device', dtype: 'int32', length: c.count, device: 0, ptr: 0x2000000n, byteLength: 4 * c.count, disposed: false, dispose() {} };
  const type = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const a = batchOf(buffer, la, c.n, c.n, c.form, type);
  if (c.op === 'potrf') complexPotrfCuda(dev, { uplo: c.uplo, a, info });
  else if (c.op === 'potrs') complexPotrsCuda(dev, { uplo: c.uplo, a, b: batchOf(buffer, lb, c.n, c.nrhs, c.form, type), info });
  else complexPosvCuda(dev, { uplo: c.uplo, a, b: batchOf(buffer, lb, c.n, c.nrhs, c.form, type), info });
  assert.equal(recorded.length, 1, 'one launch');
  const { src, config } = recorded[0]!;
  const operandLine = (o: number): { line: string; pointer: boolean } => operandLineOf(recorded[0]!, o, elementBytes);
  const ops = (c.op === 'potrf' ? [0] : [0, 1]).map(operandLine);
  const input = [
    `${config.grid[0]} ${config.block[0]} ${c.count} ${c.nrhs} ${len}`,
    ...ops.map((o) => o.line),
    ...Array.from({ length: len }, (_, e) => `${buf[2 * e]} ${buf[2 * e + 1]}`),
  ].join('\n') + '\n';

  // The reference on a copy of the buffer.
  const want = buf.slice();
  const wantInfo = new Int32Array(c.count);
  const ra = batchOf(want, la, c.n, c.n, c.form, 'complex128');
  if (c.op === 'potrf') cpuPotrfComplex({ uplo: c.uplo, a: ra, info: wantInfo });
  else if (c.op === 'potrs') cpuPotrsComplex({ uplo: c.uplo, a: ra, b: batchOf(want, lb, c.n, c.nrhs, c.form, 'complex128'), info: wantInfo });
  else cpuPosvComplex({ uplo: c.uplo, a: ra, b: batchOf(want, lb, c.n, c.nrhs, c.form, 'complex128'), info: wantInfo });

  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const defines = [`-DENTRY=${src.entry}`, ...(c.op === 'potrf' ? [] : ['-DSOLVE']), ...ops.flatMap((o, i) => (o.pointer ? [`-DP${'AB'[i]}`] : []))];
  const outputs = c.op === 'potrf' ? [la] : c.op === 'potrs' ? [lb] : [la, lb];
  return { c, dir, exe: join(dir, 'h'), input, buf, want, wantInfo, len, entry: src.entry, defines, outputs };
}

function check(p: Prepared, out: string): void {
  const { c, buf, want, len } = p;
  const nums = out.trim().split(/\s+/).map(parseHarnessNumber);
  assert.equal(nums.length, 2 * len + c.count, `${p.entry}: the buffer and info back`);
  assert.deepEqual(nums.slice(2 * len), [...p.wantInfo], `${p.entry}: info`);
  // The scale of each output's tolerance: its largest finite magnitude in the reference.
  const scale = new Float64Array(len).fill(1);
  for (const l of p.outputs) {
    const cols = l === p.outputs[0] && c.op !== 'potrs' ? c.n : c.nrhs;
    for (const off of l.offsets) {
      let s = 1;
      for (let j = 0; j < cols; j++) for (let i = 0; i < c.n; i++) for (const part of [0, 1]) {
        const v = Math.abs(want[2 * (off + i + j * l.ld) + part]!);
        if (Number.isFinite(v) && v !== SENTINEL) s = Math.max(s, v);
      }
      for (let j = 0; j < cols; j++) for (let i = 0; i < c.n; i++) scale[off + i + j * l.ld] = s;
    }
  }
  const tol = 64 * Math.max(1, c.n) * DTYPE_EPS[c.dtype];
  for (let e = 0; e < len; e++) for (const part of [0, 1]) {
    const g = nums[2 * e + part]!, w = want[2 * e + part]!, x = buf[2 * e + part]!;
    const where = `${p.entry}: pair ${e} part ${part}`;
    if (Object.is(w, x)) { assert.ok(Object.is(g, x), `${where} changed: ${g}, was ${x}`); continue; }
    if (Number.isNaN(w)) { assert.ok(Number.isNaN(g), `${where}: ${g}, want NaN`); continue; }
    assert.ok(Math.abs(g - w) <= tol * scale[e]!, `${where}: ${g}, want ${w}`);
  }
}

describe('complex Cholesky kernels run on the host', { skip, timeout: 1_800_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zpotrf-')) : '';
  const prepared = skip === undefined ? cases().map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of cases().entries()) {
    it(`${c.op} ${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.uplo} n = ${c.n}${c.op === 'potrf' ? '' : `, nrhs = ${c.nrhs}`}, ${c.count} ${c.form}`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
