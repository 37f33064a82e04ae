/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex gesvd kernel (zjacobi/,
 * complex128 and complex64, tall, wide and square, every choice of U and VT) as its launcher plans
 * and launches it (on a device that records the kernel, its launch and the pointer tables it
 * uploads), compiled as C++ for the host (test/helpers/zgesvd-host-harness.cpp) and run a thread per
 * CUDA thread. A, S, U and VT lie in one buffer (the complex ones at pair offsets, S at real offsets),
 * strided (ld > rows, gaps) and list batches, so the pointer tables of a list launch are checked to
 * count pairs and reals. Each batch mixes random, repeated, zero, graded and rank-deficient matrices
 * with one holding NaN and one Inf. Checked:
 * - info exactly as the complex reference (cpu/complex/zgesvd.ts) gives it (k + 2 for NaN and Inf, S,
 *   U and VT then NaN);
 * - every element outside S, U and VT bitwise unchanged (A is only read);
 * - the singular values descending and within 30 max(m, n) eps ||A||_F of the reference's;
 * - ||A - U diag(s) VT||_F / (max(m, n) ||A||_F eps), ||U^H U - I||_F / (k eps) and
 *   ||VT VT^H - I||_F / (k eps) below 30 (the zero and rank-deficient ones' completed columns too).
 * A check of the CUDA source without a GPU; test/gpu/zgesvd.test.ts is the real one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Storage } from '../../src/core/storage.js';
import { cpuGesvdComplex } from '../../src/cpu/complex/zgesvd.js';
import { complexGesvdCuda } from '../../src/cuda/kernels/zjacobi/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { get, op, set, zeros, type Z } from '../helpers/complex.js';
import { GENERAL_KINDS, generalCase, svdResidual, unitaryResidual } from '../helpers/zjacobi-cases.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/zgesvd-host-harness.cpp');
const SENTINEL = 12345.5;
const LIMIT = 30;
const COUNT = 7;

interface Case { dtype: DType; m: number; n: number; wantU: boolean; wantVt: boolean; form: 'strided' | 'list' }

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of [[1, 1], [4, 1], [1, 4], [5, 3], [3, 5], [8, 8], [13, 13], [32, 7], [6, 32], [31, 17], [32, 32]] as const) {
    out.push({ dtype, m, n, wantU: i % 4 !== 2, wantVt: i % 4 !== 3, form: (i >> 1) % 2 === 0 ? 'strided' : 'list' });
    i++;
  }
  return out;
}

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

/** Where one complex operand's matrices lie in the buffer (pair offsets), and how to read one back. */
interface Region { offsets: number[]; ld: number; rows: number; cols: number; stride: number }

interface Prepared {
  c: Case; dir: string; exe: string; defines: string[]; input: string; entry: string;
  buf: Float64Array; mats: Z[]; a: Region; u: Region; vt: Region; sOff: number[]; refS: Float64Array; refInfo: Int32Array;
}

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(9000 + index);
  const { m, n } = c;
  const k = Math.min(m, n);
  let next = 3;
  const region = (rows: number, cols: number): Region => {
    const ld = rows + 1 + (index % 2);
    const stride = ld * cols + 2;
    const offsets: number[] = [];
    for (let q = 0; q < COUNT; q++) { offsets.push(next); next += c.form === 'strided' ? stride : ld * cols + 1 + (q % 2); }
    next += 3;
    return { offsets, ld, rows, cols, stride };
  };
  const a = region(m, n), u = region(m, k), vt = region(k, n);
  const sStart = 2 * next + 5;
  const sOff = Array.from({ length: COUNT }, (_, q) => sStart + q * (k + 3));
  const len = sStart + COUNT * (k + 3) + 4;
  const buf = new Float64Array(len).fill(SENTINEL);
  const mats: Z[] = [];
  for (let q = 0; q < COUNT; q++) {
    const g = generalCase(rng, GENERAL_KINDS[q % GENERAL_KINDS.length]!, m, n);
    const z = zeros(m, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) { const [re, im] = get(g, i, j); set(z, i, j, round(c.dtype, re), round(c.dtype, im)); }
    if (q === 1) set(z, m - 1, 0, NaN, get(z, m - 1, 0)[1]);
    if (q === 5) set(z, 0, n - 1, get(z, 0, n - 1)[0], -Infinity);
    mats.push(z);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) { const e = 2 * (a.offsets[q]! + i + j * a.ld); [buf[e], buf[e + 1]] = get(z, i, j); }
  }

  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const elementBytes = c.dtype === 'float64' ? 8 : 4;
  const data: DeviceArray = { kind: 'device', dtype: c.dtype, length: len, device: 0, ptr: RECORDED_BASE, byteLength: len * elementBytes, disposed: false, dispose() {} };
  const info: DeviceArray = { kind: 'device', dtype: 'int32', length: COUNT, device: 0, ptr: 0x2000000n, byteLength: 4 * COUNT, disposed: false, dispose() {} };
  const type = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const complexBatch = <S extends Storage>(s: S, r: Region, dtype: 'complex128' | 'complex64'): Batch<S> => c.form === 'list'
    ? list(r.offsets.map((offset) => ({ data: s, offset })), { rows: r.rows, cols: r.cols, ld: r.ld, dtype })
    : strided(s, { rows: r.rows, cols: r.cols, ld: r.ld, stride: r.stride, offset: r.offsets[0]!, count: COUNT, dtype });
  const realBatch = <S extends Storage>(s: S): Batch<S> => c.form === 'list'
    ? list(sOff.map((offset) => ({ data: s, offset })), { rows: k, cols: 1, ld: k })
    : strided(s, { rows: k, cols: 1, ld: k, stride: k + 3, offset: sStart, count: COUNT });
  const request = <S extends Storage>(s: S, dtype: 'complex128' | 'complex64') => ({
    a: complexBatch(s, a, dtype), s: realBatch(s),
    ...(c.wantU ? { u: complexBatch(s, u, dtype) } : {}), ...(c.wantVt ? { vt: complexBatch(s, vt, dtype) } : {}),
  });
  complexGesvdCuda(dev, { ...request(data, type), info });
  assert.equal(recorded.length, 1, 'one launch');
  const r = recorded[0]!;
  const ops = [operandLine(r, 0, 2 * elementBytes), operandLine(r, 1, elementBytes),
    ...(c.wantU ? [operandLine(r, 2, 2 * elementBytes)] : []), ...(c.wantVt ? [operandLine(r, 3, 2 * elementBytes)] : [])];
  for (const o of ops) assert.equal(o.pointer, c.form === 'list');
  const input = [`${r.config.grid[0]} ${r.config.block[0]} ${COUNT} ${len}`, ...ops.map((o) => o.line), ...Array.from(buf, String)].join('\n') + '\n';

  const refBuf = buf.slice();
  const refInfo = new Int32Array(COUNT);
  cpuGesvdComplex({ ...request(refBuf, 'complex128'), info: refInfo });
  const refS = new Float64Array(COUNT * k);
  for (let q = 0; q < COUNT; q++) for (let j = 0; j < k; j++) refS[q * k + j] = refBuf[sOff[q]! + j]!;

  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), r.src.source);
  const defines = [`-DENTRY=${r.src.entry}`, ...(c.form === 'list' ? ['-DPA'] : []), ...(c.wantU ? [] : ['-DNOU']), ...(c.wantVt ? [] : ['-DNOVT'])];
  return { c, dir, exe: join(dir, 'h'), defines, input, entry: r.src.entry, buf, mats, a, u, vt, sOff, refS, refInfo };
}

function readRegion(nums: readonly number[], r: Region, q: number): Z {
  const z = zeros(r.rows, r.cols);
  for (let j = 0; j < r.cols; j++) for (let i = 0; i < r.rows; i++) { const e = 2 * (r.offsets[q]! + i + j * r.ld); set(z, i, j, nums[e]!, nums[e + 1]!); }
  return z;
}

function check(p: Prepared, out: string): void {
  const { c, buf } = p;
  const { m, n } = c;
  const k = Math.min(m, n);
  // printf's spelling of the infinities; NaN reads as NaN either way.
  const nums = out.trim().split(/\s+/).map(parseHarnessNumber);
  assert.equal(nums.length, buf.length + COUNT, `${p.entry}: the buffer and info back`);
  const info = nums.slice(buf.length);
  assert.deepEqual(info, [...p.refInfo], `${p.entry}: info`);
  assert.deepEqual([info[1], info[5]], [k + 2, k + 2], `${p.entry}: the NaN and Inf members`);
  const eps = DTYPE_EPS[c.dtype];
  const written = new Set<number>();
  const mark = (r: Region): void => { for (const off of r.offsets) for (let j = 0; j < r.cols; j++) for (let i = 0; i < r.rows; i++) written.add(2 * (off + i + j * r.ld)).add(2 * (off + i + j * r.ld) + 1); };
  for (const off of p.sOff) for (let j = 0; j < k; j++) written.add(off + j);
  if (c.wantU) mark(p.u);
  if (c.wantVt) mark(p.vt);
  for (let e = 0; e < buf.length; e++) if (!written.has(e)) assert.ok(Object.is(nums[e], buf[e]), `${p.entry}: real ${e} changed: ${nums[e]}, was ${buf[e]}`);
  for (let q = 0; q < COUNT; q++) {
    const at = `${p.entry} #${q}`;
    const s = nums.slice(p.sOff[q]!, p.sOff[q]! + k);
    const u = c.wantU ? readRegion(nums, p.u, q) : undefined;
    const vt = c.wantVt ? readRegion(nums, p.vt, q) : undefined;
    if (q === 1 || q === 5) {
      assert.ok(s.every(Number.isNaN) && (u?.d.every(Number.isNaN) ?? true) && (vt?.d.every(Number.isNaN) ?? true), `${at}: NaN outputs`);
      continue;
    }
    const a = p.mats[q]!;
    let anorm = 0;
    for (const x of a.d) anorm += x * x;
    anorm = Math.sqrt(anorm);
    for (let j = 0; j < k; j++) {
      assert.ok(Math.abs(s[j]! - p.refS[q * k + j]!) <= LIMIT * Math.max(m, n) * eps * anorm, `${at}: s[${j}] ${s[j]} vs ${p.refS[q * k + j]}`);
      if (j > 0) assert.ok(s[j - 1]! >= s[j]!, `${at}: descending`);
    }
    if (u) assert.ok(unitaryResidual(u, eps) < LIMIT, `${at}: ||U^H U - I|| ratio ${unitaryResidual(u, eps)}`);
    if (vt) assert.ok(unitaryResidual(op(vt, 'C'), eps) < LIMIT, `${at}: ||VT VT^H - I|| ratio ${unitaryResidual(op(vt, 'C'), eps)}`);
    if (u && vt) assert.ok(svdResidual(a, u, s, vt, eps) < LIMIT, `${at}: ||A - U S VT|| ratio ${svdResidual(a, u, s, vt, eps)}`);
  }
}

describe('complex gesvd kernel runs on the host', { skip, timeout: 1_800_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zgesvd-')) : '';
  const prepared = skip === undefined ? cases().map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of cases().entries()) {
    it(`gesvd ${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.m}x${c.n} ${c.wantU ? 'U' : '-'}${c.wantVt ? 'VT' : '-'}, ${c.form}`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
