/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex QR family (kernels/zqr/:
 * complexGeqrfCuda, complexOrgqrCuda, complexOrmqrCuda) as their launchers run it, every launch in
 * order, on a recording device whose workspace lies in the matrices' buffer (after them): the
 * shared kernels (warp and block scopes), the blocked drivers (panels, WY factors, the complex
 * GEMMs, zlaset, the shared tail), each kernel compiled as C++ for the host (test/helpers/
 * zqr-emulation.ts). Checked against the complex reference (cpu/complex/zqr.ts): geqrf by its
 * backward error (||A - Q R|| and ||Q^H Q - I|| over n eps, Q formed by the reference from the
 * emulated reflectors), R's real diagonal with the reference's signs and info 0; orgqr and ormqr
 * against the reference's results on the same input; a NaN matrix keeps its NaN to itself; every
 * pair outside the outputs unchanged. Sizes around the thresholds (the warp scope to 32, the block
 * scope beyond, the blocked driver forced with narrow panels and by default where the tile does not
 * fit), tall, wide and square, strided and list batches with odd ld, complex128 and complex64.
 * At float64's limits (test/helpers/qr-extremes.ts, the GPU suite's qr-extremes data): zgeqrf's R and
 * zgels's X of a complex128 batch whose middle matrix is scaled by 2^700, 2^-700 and 2^-1030
 * (subnormal parts) against the unscaled batch's: R at the GPU suite's orders (5, 20, 48, 100) and at
 * 130 (the blocked driver), X at 5 and 48 (the warp and block scopes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import type { ComplexDType, DType } from '../../src/core/dtype.js';
import type { Side } from '../../src/core/enums.js';
import { cpuGeqrfComplex, cpuOrmqrComplex, zung2r } from '../../src/cpu/complex/zqr.js';
import { cpuOrgqrComplex } from '../../src/cpu/complex/zqr.js';
import { cpuGelsComplex } from '../../src/cpu/complex/zgels.js';
import { complexGelsCuda, complexGeqrfCuda, complexOrgqrCuda, complexOrmqrCuda, type ZormqrForce, type ZqrForce } from '../../src/cuda/kernels/zqr/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { HOST_EMULATION_SKIP, RECORDED_BASE, type Recorded } from '../helpers/recording-device.js';
import { batchOf, placeAt, type Form, type Layout } from '../helpers/zchain.js';
import { bufferDevice, INFO_BASE, runRecorded } from '../helpers/zqr-emulation.js';
import { Rng } from '../helpers/random.js';
import { QR_EXTREME_COUNT, QR_EXTREME_NRHS, rFailures, SCALE_EXPONENTS, scaledQrBatch, xFailures } from '../helpers/qr-extremes.js';

const skip = HOST_EMULATION_SKIP;
const SENTINEL = 12345.5;
const TAU_SENTINEL = -777.25;
const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);
const ctypeOf = (dtype: DType): ComplexDType => (dtype === 'float64' ? 'complex128' : 'complex64');

type Op = 'geqrf' | 'orgqr' | 'ormqr';
interface Case {
  op: Op; dtype: DType; form: Form; m: number; n: number;
  /** orgqr: reflectors; ormqr: reflectors (A is order x k). */
  k?: number;
  side?: Side; trans?: 'N' | 'C';
  /** ormqr: C's vectors. */
  nvec?: number;
  force?: ZqrForce & ZormqrForce;
  /** Matrix 1 gets a NaN. */
  nan?: boolean;
  /** The default plan takes the blocked driver. */
  blocked?: boolean;
}

const CASES: readonly Case[] = [
  { op: 'geqrf', dtype: 'float64', form: 'strided', m: 1, n: 1 },
  { op: 'geqrf', dtype: 'float64', form: 'list', m: 5, n: 3, nan: true },
  { op: 'geqrf', dtype: 'float32', form: 'strided', m: 3, n: 7 },
  { op: 'geqrf', dtype: 'float64', form: 'strided', m: 32, n: 32 },
  { op: 'geqrf', dtype: 'float32', form: 'list', m: 33, n: 20 },
  { op: 'geqrf', dtype: 'float64', form: 'list', m: 40, n: 47, nan: true },
  { op: 'geqrf', dtype: 'float64', form: 'strided', m: 65, n: 64 },
  { op: 'geqrf', dtype: 'float64', form: 'strided', m: 70, n: 40, force: { design: 'blocked', panel: 16, tailMax: 0 }, nan: true },
  { op: 'geqrf', dtype: 'float32', form: 'list', m: 47, n: 47, force: { design: 'blocked', panel: 8, tailMax: 24 } },
  { op: 'geqrf', dtype: 'float64', form: 'list', m: 30, n: 50, force: { design: 'blocked', panel: 8, tailMax: 16 } },
  { op: 'geqrf', dtype: 'float64', form: 'strided', m: 128, n: 100 },
  { op: 'geqrf', dtype: 'float64', form: 'list', m: 140, n: 130, blocked: true },
  { op: 'orgqr', dtype: 'float64', form: 'strided', m: 1, n: 1, k: 1 },
  { op: 'orgqr', dtype: 'float64', form: 'list', m: 9, n: 6, k: 4 },
  { op: 'orgqr', dtype: 'float32', form: 'strided', m: 33, n: 33, k: 33 },
  { op: 'orgqr', dtype: 'float64', form: 'list', m: 47, n: 40, k: 40 },
  { op: 'orgqr', dtype: 'float64', form: 'strided', m: 64, n: 50, k: 37, force: { design: 'blocked', panel: 16, tailMax: 20 } },
  { op: 'orgqr', dtype: 'float32', form: 'list', m: 40, n: 40, k: 40, force: { design: 'blocked', panel: 8, tailMax: 0 } },
  { op: 'orgqr', dtype: 'float64', form: 'strided', m: 130, n: 128, k: 128, blocked: true },
  { op: 'ormqr', dtype: 'float64', form: 'strided', m: 7, n: 0, k: 5, side: 'left', trans: 'N', nvec: 3 },
  { op: 'ormqr', dtype: 'float64', form: 'list', m: 12, n: 0, k: 12, side: 'left', trans: 'C', nvec: 9 },
  { op: 'ormqr', dtype: 'float32', form: 'strided', m: 33, n: 0, k: 20, side: 'right', trans: 'N', nvec: 5 },
  { op: 'ormqr', dtype: 'float64', form: 'list', m: 20, n: 0, k: 17, side: 'right', trans: 'C', nvec: 40 },
  { op: 'ormqr', dtype: 'float64', form: 'strided', m: 40, n: 0, k: 35, side: 'left', trans: 'C', nvec: 6, force: { design: 'blocked', panel: 8 } },
  { op: 'ormqr', dtype: 'float64', form: 'list', m: 37, n: 0, k: 30, side: 'left', trans: 'N', nvec: 4, force: { design: 'blocked', panel: 16 } },
  { op: 'ormqr', dtype: 'float32', form: 'strided', m: 33, n: 0, k: 20, side: 'right', trans: 'N', nvec: 7, force: { design: 'blocked', panel: 8 } },
  { op: 'ormqr', dtype: 'float64', form: 'list', m: 30, n: 0, k: 30, side: 'right', trans: 'C', nvec: 5, force: { design: 'blocked', panel: 8 } },
  { op: 'ormqr', dtype: 'float64', form: 'strided', m: 70, n: 0, k: 64, side: 'left', trans: 'C', nvec: 3, blocked: true },
];

const nameOf = (c: Case): string => `${c.op} ${ctypeOf(c.dtype)} ${c.form} ${c.m}x${c.op === 'ormqr' ? c.k : c.n}`
  + `${c.op === 'orgqr' ? ` k ${c.k}` : ''}${c.op === 'ormqr' ? ` ${c.side} ${c.trans} (${c.nvec} vectors)` : ''}`
  + `${c.force?.design !== undefined ? ` ${c.force.design}${c.force.panel !== undefined ? ` nb ${c.force.panel}` : ''}` : ''}${c.nan ? ', one with NaN' : ''}`;

/** |x - y| over the parts of two equally shaped matrices of a buffer, and the largest |y|. */
function maxDiff(got: Float64Array, want: Float64Array, l: Layout, q: number, rows: number, cols: number): { diff: number; scale: number } {
  let diff = 0, scale = 0;
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) for (const p of [0, 1]) {
    const e = 2 * (l.offsets[q]! + i + j * l.ld) + p;
    diff = Math.max(diff, Math.abs(got[e]! - want[e]!));
    scale = Math.max(scale, Math.abs(want[e]!));
  }
  return { diff, scale };
}

describe('complex QR: every launch on the host, in order', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zqr-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [index, c] of CASES.entries()) {
    it(nameOf(c), async () => {
      const rng = new Rng(2100 + index);
      const ctype = ctypeOf(c.dtype);
      const bytes = c.dtype === 'float64' ? 16 : 8;
      const eps = c.dtype === 'float64' ? 2 ** -53 : 2 ** -24;
      const count = 3;
      const { m } = c;
      const k = c.op === 'geqrf' ? Math.min(m, c.n) : c.k!;
      // A: m x n (geqrf, orgqr), or the order x k reflectors (ormqr); tau: k x 1; C (ormqr).
      const aCols = c.op === 'ormqr' ? k : c.n;
      const cRows = c.side === 'right' ? c.nvec! : m;
      const cCols = c.side === 'right' ? m : c.nvec!;
      const at = { next: 3 };
      const la = placeAt(rng, at, m, aCols, count, c.form);
      const lt = placeAt(rng, at, Math.max(1, k), 1, count, c.form);
      const lc = c.op === 'ormqr' ? placeAt(rng, at, cRows, cCols, count, c.form) : undefined;
      const matrices = at.next + 2;

      const recorded: Recorded[] = [];
      const ints = new Map<bigint, Int32Array>();
      const wsBase = RECORDED_BASE + BigInt(Math.ceil((matrices * bytes) / 256) * 256);
      const { dev, top } = bufferDevice(recorded, wsBase, ints);
      const fakeBuffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * matrices, device: 0, ptr: RECORDED_BASE, byteLength: matrices * bytes, disposed: false, dispose() {} };
      const info: DeviceArray = { kind: 'device', dtype: 'int32', length: count, device: 0, ptr: INFO_BASE, byteLength: 4 * count, disposed: false, dispose() {} };
      const a = batchOf(fakeBuffer, la, m, aCols, c.form, ctype);
      const tau = batchOf(fakeBuffer, lt, k, 1, c.form, ctype);
      if (c.op === 'geqrf') complexGeqrfCuda(dev, { a, tau, info }, { force: c.force });
      else if (c.op === 'orgqr') complexOrgqrCuda(dev, { a, tau }, { force: c.force });
      else complexOrmqrCuda(dev, { side: c.side!, trans: c.trans!, a, tau, c: batchOf(fakeBuffer, lc!, cRows, cCols, c.form, ctype) }, { force: c.force });
      const len = Math.max(matrices, Math.ceil(Number(top() - RECORDED_BASE) / bytes)) + 1;

      // The input: random A (geqrf), or the reference's geqrf factors of random matrices (orgqr, ormqr).
      const buf = new Float64Array(2 * len).fill(NaN);
      buf.fill(SENTINEL, 0, 2 * matrices);
      const fill = (l: Layout, rows: number, cols: number): void => {
        for (let q = 0; q < count; q++) for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
          const e = l.offsets[q]! + i + j * l.ld;
          buf[2 * e] = round(c.dtype, rng.uniform(-1, 1));
          buf[2 * e + 1] = round(c.dtype, rng.uniform(-1, 1));
        }
      };
      fill(la, m, aCols);
      for (let q = 0; q < count; q++) for (let p = 0; p < 2 * k; p++) buf[2 * lt.offsets[q]! + p] = TAU_SENTINEL;
      if (lc !== undefined) fill(lc, cRows, cCols);
      if (c.op !== 'geqrf') {
        cpuGeqrfComplex({ a: batchOf(buf, la, m, aCols, c.form, 'complex128'), tau: batchOf(buf, lt, k, 1, c.form, 'complex128'), info: new Int32Array(count) });
        for (let e = 0; e < 2 * matrices; e++) buf[e] = round(c.dtype, buf[e]!);
      }
      const nanAt = c.nan ? 2 * (la.offsets[1]! + (m - 1) + Math.floor(aCols / 2) * la.ld) : -1;
      if (c.nan) buf[nanAt] = NaN;
      const before = buf.slice();

      ints.set(INFO_BASE, new Int32Array(count).fill(-99));
      const entries = await runRecorded(recorded, buf, len, bytes, root, ints);
      if (c.force?.design === 'blocked' || c.blocked === true) {
        assert.ok([...entries].some((e) => e.startsWith('zwy_factor_')), 'the blocked driver ran');
        assert.ok([...entries].some((e) => e.includes('gemm')), 'the complex GEMMs ran');
      } else {
        // The shared kernels alone (a plan change moving a case onto the blocked driver would leave them unchecked).
        assert.ok(![...entries].some((e) => e.startsWith('zwy_factor_')), 'the shared kernel alone, no blocked driver');
      }

      // Pairs outside the outputs unchanged.
      const written = new Set<number>();
      const mark = (l: Layout, rows: number, cols: number): void => {
        for (const o of l.offsets) for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) written.add(o + i + j * l.ld);
      };
      if (c.op !== 'ormqr') mark(la, m, aCols);
      if (c.op === 'geqrf') mark(lt, k, 1);
      if (lc !== undefined) mark(lc, cRows, cCols);
      for (let e = 0; e < matrices; e++) if (!written.has(e)) {
        assert.ok(Object.is(buf[2 * e], before[2 * e]) && Object.is(buf[2 * e + 1], before[2 * e + 1]), `pair ${e} outside the outputs unchanged`);
      }

      const want = before.slice(0, 2 * matrices);
      if (c.op === 'geqrf') {
        assert.deepEqual([...ints.get(INFO_BASE)!], [0, 0, 0], 'info');
        const wantInfo = new Int32Array(count);
        cpuGeqrfComplex({ a: batchOf(want, la, m, aCols, c.form, 'complex128'), tau: batchOf(want, lt, k, 1, c.form, 'complex128'), info: wantInfo });
        for (let q = 0; q < count; q++) {
          if (c.nan && q === 1) {
            let nans = 0;
            for (let j = 0; j < aCols; j++) for (let i = 0; i < m; i++) if (Number.isNaN(buf[2 * (la.offsets[q]! + i + j * la.ld)]!)) nans++;
            assert.ok(nans > 0, 'the NaN matrix shows NaN');
            continue;
          }
          const [res, orth] = backwardErrors(buf, before, la, lt, q, m, c.n);
          const bound = 30 * Math.max(m, c.n);
          assert.ok(res <= bound * eps, `matrix ${q}: ||A - QR|| / ||A|| = ${res / eps} eps`);
          assert.ok(orth <= bound * eps, `matrix ${q}: ||Q^H Q - I|| = ${orth / eps} eps`);
          for (let j = 0; j < k; j++) {
            const d = 2 * (la.offsets[q]! + j + j * la.ld);
            assert.equal(buf[d + 1], 0, `R(${j}, ${j}) real`);
            assert.equal(Math.sign(buf[d]!), Math.sign(want[d]!), `R(${j}, ${j}) has the reference's sign`);
          }
        }
        return;
      }
      if (c.op === 'orgqr') cpuOrgqrComplex({ a: batchOf(want, la, m, aCols, c.form, 'complex128'), tau: batchOf(want, lt, k, 1, c.form, 'complex128') });
      else cpuOrmqrComplex({ side: c.side!, trans: c.trans!, a: batchOf(want, la, m, aCols, c.form, 'complex128'), tau: batchOf(want, lt, k, 1, c.form, 'complex128'), c: batchOf(want, lc!, cRows, cCols, c.form, 'complex128') });
      const [lo, rows, cols] = c.op === 'orgqr' ? [la, m, c.n] as const : [lc!, cRows, cCols] as const;
      for (let q = 0; q < count; q++) {
        const { diff, scale } = maxDiff(buf, want, lo, q, rows, cols);
        assert.ok(diff <= 20 * Math.max(m, k) * eps * Math.max(1, scale), `matrix ${q}: max |got - reference| = ${diff / eps} eps (scale ${scale})`);
      }
    });
  }
});

/** ||A - Q R||_F / ||A||_F and ||Q^H Q - I||_F of matrix q: Q (m x k) by the reference's zung2r from the emulated reflectors. */
function backwardErrors(buf: Float64Array, before: Float64Array, la: Layout, lt: Layout, q: number, m: number, n: number): [number, number] {
  const k = Math.min(m, n);
  const o = la.offsets[q]!;
  const at = (x: Float64Array, i: number, j: number): [number, number] => [x[2 * (o + i + j * la.ld)]!, x[2 * (o + i + j * la.ld) + 1]!];
  const qm = new Float64Array(2 * m * k);
  for (let j = 0; j < k; j++) for (let i = 0; i < m; i++) { const [re, im] = at(buf, i, j); qm[2 * (i + j * m)] = re; qm[2 * (i + j * m) + 1] = im; }
  const tau = buf.slice(2 * lt.offsets[q]!, 2 * lt.offsets[q]! + 2 * k);
  zung2r(qm, tau, m, k, k);
  let res = 0, norm = 0;
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
    let re = 0, im = 0;
    for (let l = 0; l <= Math.min(j, k - 1); l++) {
      const [rr, ri] = at(buf, l, j);
      const qr = qm[2 * (i + l * m)]!, qi = qm[2 * (i + l * m) + 1]!;
      re += qr * rr - qi * ri;
      im += qr * ri + qi * rr;
    }
    const [ar, ai] = at(before, i, j);
    res += (ar - re) ** 2 + (ai - im) ** 2;
    norm += ar * ar + ai * ai;
  }
  let orth = 0;
  for (let j = 0; j < k; j++) for (let i = 0; i < k; i++) {
    let re = 0, im = 0;
    for (let p = 0; p < m; p++) {
      const xr = qm[2 * (p + i * m)]!, xi = -qm[2 * (p + i * m) + 1]!, yr = qm[2 * (p + j * m)]!, yi = qm[2 * (p + j * m) + 1]!;
      re += xr * yr - xi * yi;
      im += xr * yi + xi * yr;
    }
    orth += (re - (i === j ? 1 : 0)) ** 2 + im ** 2;
  }
  return [Math.sqrt(res / Math.max(norm, Number.MIN_VALUE)), Math.sqrt(orth)];
}

interface GelsCase { dtype: DType; form: Form; m: number; n: number; nrhs: number }
const GELS: readonly GelsCase[] = [
  { dtype: 'float64', form: 'strided', m: 8, n: 5, nrhs: 3 },
  { dtype: 'float32', form: 'list', m: 5, n: 8, nrhs: 2 },
  { dtype: 'float64', form: 'list', m: 40, n: 33, nrhs: 4 },
  { dtype: 'float64', form: 'strided', m: 20, n: 47, nrhs: 3 },
  { dtype: 'float32', form: 'strided', m: 33, n: 33, nrhs: 1 },
];

/**
 * gels (complexGelsCuda): three systems, the first of full rank (A's diagonal raised by 4), the second
 * with an exactly zero column (tall; a zero row when wide: R(j, j) = 0, info j + 1, B as given), the
 * third all zero (X = 0, info 0); info exactly, B and A against the reference (B bit for bit where
 * info > 0 and where A is zero), every pair outside A and B unchanged.
 */
describe('complex gels: every launch on the host, in order', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zgels-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [index, c] of GELS.entries()) {
    it(`gels ${ctypeOf(c.dtype)} ${c.form} ${c.m}x${c.n}, ${c.nrhs} right-hand sides (one singular, one zero)`, async () => {
      const rng = new Rng(3100 + index);
      const ctype = ctypeOf(c.dtype);
      const bytes = c.dtype === 'float64' ? 16 : 8;
      const eps = c.dtype === 'float64' ? 2 ** -53 : 2 ** -24;
      const { m, n, nrhs } = c;
      const rowsB = Math.max(m, n);
      const count = 3;
      const at = { next: 3 };
      const la = placeAt(rng, at, m, n, count, c.form);
      const lb = placeAt(rng, at, rowsB, nrhs, count, c.form);
      const matrices = at.next + 2;
      const recorded: Recorded[] = [];
      const ints = new Map<bigint, Int32Array>();
      const wsBase = RECORDED_BASE + BigInt(Math.ceil((matrices * bytes) / 256) * 256);
      const { dev, top } = bufferDevice(recorded, wsBase, ints);
      const fakeBuffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * matrices, device: 0, ptr: RECORDED_BASE, byteLength: matrices * bytes, disposed: false, dispose() {} };
      const info: DeviceArray = { kind: 'device', dtype: 'int32', length: count, device: 0, ptr: INFO_BASE, byteLength: 4 * count, disposed: false, dispose() {} };
      complexGelsCuda(dev, { a: batchOf(fakeBuffer, la, m, n, c.form, ctype), b: batchOf(fakeBuffer, lb, rowsB, nrhs, c.form, ctype), info });
      const len = Math.max(matrices, Math.ceil(Number(top() - RECORDED_BASE) / bytes)) + 1;

      const buf = new Float64Array(2 * len).fill(NaN);
      buf.fill(SENTINEL, 0, 2 * matrices);
      const zeroAt = Math.floor(Math.min(m, n) / 2);
      for (let q = 0; q < count; q++) {
        for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
          const e = la.offsets[q]! + i + j * la.ld;
          const zero = q === 2 || (q === 1 && (m >= n ? j === zeroAt : i === zeroAt));
          buf[2 * e] = zero ? 0 : round(c.dtype, rng.uniform(-1, 1) + (i === j ? 4 : 0));
          buf[2 * e + 1] = zero ? 0 : round(c.dtype, rng.uniform(-1, 1));
        }
        for (let j = 0; j < nrhs; j++) for (let i = 0; i < rowsB; i++) {
          const e = lb.offsets[q]! + i + j * lb.ld;
          buf[2 * e] = round(c.dtype, rng.uniform(-1, 1));
          buf[2 * e + 1] = round(c.dtype, rng.uniform(-1, 1));
        }
      }
      const before = buf.slice();
      ints.set(INFO_BASE, new Int32Array(count).fill(-99));
      const entries = await runRecorded(recorded, buf, len, bytes, root, ints);
      assert.ok([...entries].some((e) => e.startsWith('zgels_check_')) && [...entries].some((e) => e.startsWith('ztrsm_') || e.includes('gemm')), 'the check and the solve ran');

      const want = before.slice(0, 2 * matrices);
      const wantInfo = new Int32Array(count).fill(-4);
      cpuGelsComplex({ a: batchOf(want, la, m, n, c.form, 'complex128'), b: batchOf(want, lb, rowsB, nrhs, c.form, 'complex128'), info: wantInfo });
      assert.deepEqual([...ints.get(INFO_BASE)!], [...wantInfo], 'info');
      assert.deepEqual([...wantInfo], [0, zeroAt + 1, 0], 'the cases as meant');
      const written = new Set<number>();
      for (const [l, rows, cols] of [[la, m, n], [lb, rowsB, nrhs]] as const) for (const o of l.offsets) for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) written.add(o + i + j * l.ld);
      for (let e = 0; e < matrices; e++) if (!written.has(e)) assert.ok(Object.is(buf[2 * e], before[2 * e]) && Object.is(buf[2 * e + 1], before[2 * e + 1]), `pair ${e} outside A and B unchanged`);
      for (let q = 0; q < count; q++) {
        const a = maxDiff(buf, want, la, q, m, n);
        assert.ok(a.diff <= 50 * rowsB * eps * Math.max(1, a.scale), `matrix ${q}: A's factors: max |got - reference| = ${a.diff / eps} eps`);
        if (q === 0) {
          const b = maxDiff(buf, want, lb, q, rowsB, nrhs);
          assert.ok(b.diff <= 50 * rowsB * eps * Math.max(1, b.scale), `matrix 0: B: max |got - reference| = ${b.diff / eps} eps`);
          continue;
        }
        // Singular: B as given; zero: B = 0, both exactly.
        for (let j = 0; j < nrhs; j++) for (let i = 0; i < rowsB; i++) for (const p of [0, 1]) {
          const e = 2 * (lb.offsets[q]! + i + j * lb.ld) + p;
          assert.ok(Object.is(buf[e], want[e]), `matrix ${q}: B(${i}, ${j}) exactly the reference's (${buf[e]} against ${want[e]})`);
        }
      }
    });
  }
});

/**
 * zgeqrf's factors or zgels's X (complexGeqrfCuda, complexGelsCuda: every launch on the host) of the
 * qr-extremes batches of order n (complex128) for each exponent of `exponents`, the middle matrix of
 * each batch scaled by 2^e: the batches one after the other in one batch (one launch sequence, its
 * kernels compiled once); each batch's middle matrix's factors or X, interleaved.
 */
async function extremeRun(root: string, op: 'geqrf' | 'gels', n: number, exponents: readonly number[]): Promise<Float64Array[]> {
  const per = QR_EXTREME_COUNT, count = per * exponents.length, nrhs = QR_EXTREME_NRHS, bytes = 16;
  const rng = new Rng(4100 + n);
  const at = { next: 3 };
  const la = placeAt(rng, at, n, n, count, 'strided');
  const lb = placeAt(rng, at, n, nrhs, count, 'strided');
  const lt = placeAt(rng, at, n, 1, count, 'strided');
  const matrices = at.next + 2;
  const recorded: Recorded[] = [];
  const ints = new Map<bigint, Int32Array>();
  const wsBase = RECORDED_BASE + BigInt(Math.ceil((matrices * bytes) / 256) * 256);
  const { dev, top } = bufferDevice(recorded, wsBase, ints);
  const fakeBuffer: DeviceArray = { kind: 'device', dtype: 'float64', length: 2 * matrices, device: 0, ptr: RECORDED_BASE, byteLength: matrices * bytes, disposed: false, dispose() {} };
  const info: DeviceArray = { kind: 'device', dtype: 'int32', length: count, device: 0, ptr: INFO_BASE, byteLength: 4 * count, disposed: false, dispose() {} };
  const a = batchOf(fakeBuffer, la, n, n, 'strided', 'complex128');
  if (op === 'geqrf') complexGeqrfCuda(dev, { a, tau: batchOf(fakeBuffer, lt, n, 1, 'strided', 'complex128'), info });
  else complexGelsCuda(dev, { a, b: batchOf(fakeBuffer, lb, n, nrhs, 'strided', 'complex128'), info });
  const len = Math.max(matrices, Math.ceil(Number(top() - RECORDED_BASE) / bytes)) + 1;
  const buf = new Float64Array(2 * len).fill(NaN);
  // Matrix q of batch g at the layout's place g * per + q.
  const put = (l: Layout, g: number, x: Float64Array, rows: number, cols: number): void => {
    for (let q = 0; q < per; q++) for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) for (const h of [0, 1]) {
      buf[2 * (l.offsets[g * per + q]! + i + j * l.ld) + h] = x[2 * (q * rows * cols + i + j * rows) + h]!;
    }
  };
  exponents.forEach((e, g) => {
    const data = scaledQrBatch(true, n, n, 2 ** e);
    put(la, g, data.a, n, n);
    put(lb, g, data.b, n, nrhs);
  });
  ints.set(INFO_BASE, new Int32Array(count).fill(-99));
  await runRecorded(recorded, buf, len, bytes, root, ints);
  assert.deepEqual([...ints.get(INFO_BASE)!], new Array(count).fill(0), `${op} ${n}: info`);
  const [l, rows, cols] = op === 'geqrf' ? [la, n, n] : [lb, n, nrhs];
  return exponents.map((_, g) => {
    const out = new Float64Array(2 * rows * cols);
    const o = l.offsets[g * per + 1]!;
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) for (const h of [0, 1]) out[2 * (i + j * rows) + h] = buf[2 * (o + i + j * l.ld) + h]!;
    return out;
  });
}

describe('complex QR at float64\'s limits: every launch on the host, R scales with A and X does not (2^700, 2^-700, subnormal 2^-1030)', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zqr-extremes-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  // zgeqrf at the GPU suite's orders (the warp scope at 5 and 20, the block scope at 48 and 100) and on
  // the blocked driver (130); zgels on the warp and block scopes.
  for (const n of [5, 20, 48, 100, 130]) {
    const gels = n === 5 || n === 48;
    it(`zgeqrf ${n} x ${n}${n === 130 ? ' (blocked)' : ''}${gels ? ' and zgels' : ''}`, async () => {
      const exponents = [0, ...SCALE_EXPONENTS];
      const [base, ...got] = await extremeRun(root, 'geqrf', n, exponents);
      const failures = SCALE_EXPONENTS.flatMap((e, g) => rFailures(`n ${n}`, e, true, n, n, base!, got[g]!));
      if (gels) {
        const [baseX, ...gotX] = await extremeRun(root, 'gels', n, exponents);
        failures.push(...SCALE_EXPONENTS.flatMap((e, g) => xFailures(`n ${n}`, e, baseX!, gotX[g]!)));
      }
      assert.deepEqual(failures, []);
    });
  }
});
