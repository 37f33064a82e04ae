/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex inverses (kernels/zinverse/:
 * complexTrtriCuda, complexLauumCuda, complexPotriCuda, complexPotiCuda, complexGetriCuda) as their launchers run
 * them, every launch in order: on a device that records each kernel, its launch and the pointer
 * tables uploaded, and whose workspace lies in the same buffer as the matrices (after them), then
 * each recorded kernel compiled as C++ for the host with its family's harness (ztrsm, zherk, zgemm,
 * zpotrf and zinverse-host-harness.cpp) and run on that buffer, passed on from launch to launch;
 * the info kernels (info_zero, the combine) applied here as their one-line sources say. So the
 * leaves, the products, the scan and the moves run on the sub-blocks and workspaces as on a GPU.
 * Checked against the complex reference (cpu/complex/zinverse.ts) on a copy of the buffer: info
 * exactly; a matrix that must come back unchanged (a zero diagonal: trtri, potri; a zero U(k, k):
 * getri, on the reference's getrf factors of row-permuted diagonally dominant matrices) bit for bit; a
 * matrix whose potrf failed in poti: its factor's columns before the failure; the rest within a
 * backward-error tolerance; and every pair the call must not write (outside the matrices, the
 * other triangle, a unit diagonal) unchanged. Orders 1 to 100 (the leaf, one and two levels of the
 * recursion), complex128 and complex64, odd ld, strided and list batches; the workspace starts as
 * NaN, so a step that reads what no step wrote shows. A check of the CUDA sources without a GPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { cpuGetrfComplex } from '../../src/cpu/complex/zgetrf.js';
import { cpuGetriComplex } from '../../src/cpu/complex/zgetri.js';
import { cpuLauumComplex, cpuPotiComplex, cpuPotriComplex, cpuTrtriComplex } from '../../src/cpu/complex/zinverse.js';
import { complexGetriCuda, complexLauumCuda, complexPotiCuda, complexPotriCuda, complexTrtriCuda } from '../../src/cuda/kernels/zinverse/index.js';
import type { DeviceArray, DeviceDType, GpuDevice } from '../../src/cuda/runtime/types.js';
import { get, randomHpd, type Z } from '../helpers/complex.js';
import { compileHarnesses, HOST_EMULATION_SKIP, NO_MMA_CARD, RECORDED_BASE, recordingDevice, type HarnessBuild, type Recorded } from '../helpers/recording-device.js';
import { batchOf, HARNESSES, placeAt, runChain, stepsOf, type Form } from '../helpers/zchain.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;
const SENTINEL = 12345.5;
const INFO_BASE = 0x2000000n;
const IPIV_BASE = 0x3000000n;


const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);
const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

/**
 * The recording device with its allocations (the workspace) in the matrices' buffer, from `base`
 * on, and views that are views (an offset into their array); `top()`: the last byte any view reaches.
 */
function bufferDevice(recorded: Recorded[], base: bigint): { dev: GpuDevice; top: () => bigint } {
  const inner = recordingDevice(recorded, NO_MMA_CARD);
  let next = base;
  let top = base;
  const fake = (dtype: DeviceDType, length: number, ptr: bigint): DeviceArray =>
    ({ kind: 'device', dtype, length, device: 0, ptr, byteLength: length * 8, disposed: false, dispose() {} });
  const dev: GpuDevice = {
    ...inner,
    alloc: (dtype, length) => {
      const a = fake(dtype, length, next);
      next += BigInt(Math.ceil((length * 8 + 256) / 256) * 256);
      return a;
    },
    view: (a, offset, length, dtype) => {
      const v = fake(dtype ?? a.dtype, length ?? a.length, a.ptr + BigInt(offset * 8));
      const bytes = dtype === 'float32' || dtype === 'int32' ? 4 : 8;
      const end = v.ptr + BigInt(v.length * bytes);
      if (end > top) top = end;
      return v;
    },
  };
  return { dev, top: () => top };
}

// ---------------------------------------------------------------------------------------------
// Cases.

type Op = 'trtri' | 'lauum' | 'potri' | 'poti' | 'getri';
interface Case { op: Op; dtype: DType; form: Form; n: number; uplo: Uplo; diag?: Diag }

const CASES: readonly Case[] = [
  { op: 'trtri', dtype: 'float64', form: 'strided', n: 1, uplo: 'lower' },
  { op: 'trtri', dtype: 'float64', form: 'list', n: 5, uplo: 'upper' },
  { op: 'trtri', dtype: 'float32', form: 'strided', n: 32, uplo: 'lower', diag: 'unit' },
  { op: 'trtri', dtype: 'float64', form: 'strided', n: 47, uplo: 'lower' },
  { op: 'trtri', dtype: 'float32', form: 'list', n: 64, uplo: 'upper' },
  { op: 'trtri', dtype: 'float64', form: 'list', n: 100, uplo: 'upper', diag: 'unit' },
  { op: 'lauum', dtype: 'float64', form: 'strided', n: 5, uplo: 'lower' },
  { op: 'lauum', dtype: 'float32', form: 'list', n: 33, uplo: 'upper' },
  { op: 'lauum', dtype: 'float64', form: 'strided', n: 100, uplo: 'lower' },
  { op: 'potri', dtype: 'float64', form: 'list', n: 1, uplo: 'upper' },
  { op: 'potri', dtype: 'float32', form: 'strided', n: 32, uplo: 'upper' },
  { op: 'potri', dtype: 'float64', form: 'strided', n: 33, uplo: 'lower' },
  { op: 'potri', dtype: 'float64', form: 'list', n: 100, uplo: 'upper' },
  { op: 'poti', dtype: 'float64', form: 'strided', n: 5, uplo: 'lower' },
  { op: 'poti', dtype: 'float32', form: 'list', n: 47, uplo: 'upper' },
  { op: 'poti', dtype: 'float64', form: 'strided', n: 64, uplo: 'lower' },
  { op: 'getri', dtype: 'float64', form: 'strided', n: 1, uplo: 'lower' },
  { op: 'getri', dtype: 'float32', form: 'list', n: 5, uplo: 'lower' },
  { op: 'getri', dtype: 'float64', form: 'list', n: 32, uplo: 'lower' },
  { op: 'getri', dtype: 'float64', form: 'strided', n: 47, uplo: 'lower' },
  { op: 'getri', dtype: 'float32', form: 'strided', n: 100, uplo: 'lower' },
];

const nameOf = (c: Case): string =>
  `${c.op} ${c.dtype === 'float64' ? 'complex128' : 'complex64'}${c.op === 'getri' ? '' : ` ${c.uplo}`}${c.diag === 'unit' ? ' unit' : ''} n = ${c.n}, 3 ${c.form}${c.op === 'lauum' || c.diag === 'unit' ? '' : ' (one failing)'}`;

describe('complex inverses: every launch on the host, in order', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zinv-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [index, c] of CASES.entries()) {
    it(nameOf(c), async () => {
      const rng = new Rng(1300 + index);
      const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
      const bytes = c.dtype === 'float64' ? 16 : 8;
      const eps = DTYPE_EPS[c.dtype];
      const { n, uplo } = c;
      const diag = c.diag ?? 'nonunit';
      const count = 3;
      const at = { next: 3 };
      const la = placeAt(rng, at, n, n, count, c.form);
      const matrices = at.next + 2;
      // Failing members: a zero diagonal (trtri, potri), not positive definite past the leaf or NaN (poti).
      const k = n - 1 - Math.floor(n / 3);
      const perm = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) { const j = rng.int(0, i); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
      const values = (q: number, i: number, j: number, h: Z | undefined): [number, number] => {
        if (c.op === 'getri') {
          // Row i of a diagonally dominant matrix's row perm[i] (the pivots interchange rows); matrix 1 singular (a zero column).
          if (q === 1 && j === k) return [0, 0];
          return [(perm[i] === j ? 2 * n : 0) + rng.uniform(-1, 1), rng.uniform(-1, 1)];
        }
        if (!inTriangle(uplo, i, j)) return [NaN, NaN];
        if (c.op === 'poti') {
          const [re, im] = get(h!, i, j);
          if (q === 1 && i === k && j === k) return [-1, 0];
          if (q === 2 && n > 1 && i === (uplo === 'lower' ? n - 1 : k) && j === (uplo === 'lower' ? k : n - 1)) return [NaN, im];
          return [re, i === j ? NaN : im];
        }
        if (i === j) {
          if (diag === 'unit') return [NaN, NaN];
          if ((c.op === 'trtri' || c.op === 'potri') && q === 1 && i === k) return [0, 0];
          return [2 + rng.uniform(0, 1), c.op === 'lauum' ? NaN : rng.uniform(-1, 1)];
        }
        return [rng.uniform(-1, 1) / n, rng.uniform(-1, 1) / n];
      };

      // The launcher on the recording device (its workspace in the buffer after the matrices).
      const recorded: Recorded[] = [];
      const wsBase = RECORDED_BASE + BigInt(Math.ceil((matrices * bytes) / 256) * 256);
      const { dev, top } = bufferDevice(recorded, wsBase);
      const fakeBuffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * matrices, device: 0, ptr: RECORDED_BASE, byteLength: matrices * bytes, disposed: false, dispose() {} };
      const info: DeviceArray = { kind: 'device', dtype: 'int32', length: count, device: 0, ptr: INFO_BASE, byteLength: 4 * count, disposed: false, dispose() {} };
      const ipivArray: DeviceArray = { kind: 'device', dtype: 'int32', length: Math.max(1, n * count), device: 0, ptr: IPIV_BASE, byteLength: 4 * Math.max(1, n * count), disposed: false, dispose() {} };
      const a = batchOf(fakeBuffer, la, n, n, c.form, ctype);
      if (c.op === 'trtri') complexTrtriCuda(dev, { uplo, diag, a, info });
      else if (c.op === 'lauum') complexLauumCuda(dev, { uplo, a, info });
      else if (c.op === 'potri') complexPotriCuda(dev, { uplo, a, info });
      else if (c.op === 'poti') complexPotiCuda(dev, { uplo, a, info });
      else complexGetriCuda(dev, { a, ipiv: ipivArray, pivotStride: n, info });
      const len = Math.max(matrices, Math.ceil(Number(top() - RECORDED_BASE) / bytes)) + 1;

      const buf = new Float64Array(2 * len).fill(NaN);
      buf.fill(SENTINEL, 0, 2 * matrices);
      for (let q = 0; q < count; q++) {
        const h = c.op === 'poti' ? randomHpd(rng, n) : undefined;
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
          const e = la.offsets[q]! + i + j * la.ld;
          const [re, im] = values(q, i, j, h);
          buf[2 * e] = round(c.dtype, re);
          buf[2 * e + 1] = round(c.dtype, im);
        }
      }
      // getri: getrf's factors (the reference's), rounded to the type, and its pivots.
      const pivots = new Int32Array(Math.max(1, n * count));
      if (c.op === 'getri') {
        cpuGetrfComplex({ a: batchOf(buf, la, n, n, c.form, 'complex128'), ipiv: pivots, pivotStride: n, info: new Int32Array(count) });
        for (let e = 0; e < 2 * matrices; e++) buf[e] = round(c.dtype, buf[e]!);
      }
      const before = buf.slice();

      const builds = new Map<string, HarnessBuild & { key: string }>();
      const steps = stepsOf(recorded, bytes, root, builds, true);
      assert.ok(steps.some((s) => s.family === 'zinv-move'), 'the moves');
      for (const family of Object.keys(HARNESSES) as (keyof typeof HARNESSES)[]) {
        const mine = [...builds.values()].filter((x) => x.key.startsWith(`${family}/`));
        if (mine.length > 0) await compileHarnesses(resolve(`test/helpers/${HARNESSES[family]}`), mine);
      }
      const infos = new Map<bigint, Int32Array>([[IPIV_BASE, pivots]]);
      runChain(steps, buf, len, bytes, infos);

      // The reference on a copy of the input.
      const want = before.slice(0, 2 * matrices);
      const wantInfo = new Int32Array(count).fill(-4);
      const ra = batchOf(want, la, n, n, c.form, 'complex128');
      if (c.op === 'trtri') cpuTrtriComplex({ uplo, diag, a: ra, info: wantInfo });
      else if (c.op === 'lauum') cpuLauumComplex({ uplo, a: ra, info: wantInfo });
      else if (c.op === 'potri') cpuPotriComplex({ uplo, a: ra, info: wantInfo });
      else if (c.op === 'poti') cpuPotiComplex({ uplo, a: ra, info: wantInfo });
      else cpuGetriComplex({ a: ra, ipiv: pivots, pivotStride: n, info: wantInfo });
      assert.deepEqual([...infos.get(INFO_BASE)!], [...wantInfo], 'info');
      if (c.op !== 'lauum' && diag === 'nonunit' && (n > 1 || c.op !== 'poti')) assert.ok(wantInfo[1]! > 0, 'matrix 1 fails');

      const owner = new Map<number, [number, number, number]>();
      const scale = new Float64Array(count).fill(1);
      la.offsets.forEach((off, q) => {
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
          owner.set(off + i + j * la.ld, [q, i, j]);
          for (const part of [0, 1]) { const w = Math.abs(want[2 * (off + i + j * la.ld) + part]!); if (Number.isFinite(w)) scale[q] = Math.max(scale[q]!, w); }
        }
      });
      const tol = (c.op === 'poti' ? 256 : 64) * Math.max(8, n) * eps;
      for (let e = 0; e < matrices; e++) {
        const o = owner.get(e);
        const [g, w, x] = [[buf[2 * e]!, buf[2 * e + 1]!], [want[2 * e]!, want[2 * e + 1]!], [before[2 * e]!, before[2 * e + 1]!]];
        const where = `pair ${e}${o ? ` (matrix ${o[0]} (${o[1]}, ${o[2]}))` : ''}`;
        const same = (y: number[], what: string): void => assert.ok(Object.is(g[0], y[0]) && Object.is(g[1], y[1]), `${where}: ${g}, ${what} ${y}`);
        if (o === undefined) { same(x, 'was'); continue; }
        const [q, i, j] = o;
        if (c.op !== 'getri' && (!inTriangle(uplo, i, j) || (i === j && diag === 'unit'))) { same(x, 'was'); continue; }
        if (wantInfo[q] !== 0) {
          if (c.op !== 'poti') { same(x, 'was'); continue; }
          // potrf failed: the factor's columns before the failing one, and its diagonal element.
          const col = uplo === 'lower' ? j : i, kk = wantInfo[q]! - 1;
          if (col > kk || (col === kk && i !== j)) continue;
        }
        if ((c.op === 'lauum' || c.op === 'potri' || c.op === 'poti') && i === j && wantInfo[q] === 0) assert.ok(Object.is(g[1], 0), `${where}: the diagonal's imaginary part ${g[1]}`);
        if (Number.isNaN(w[0]) || Number.isNaN(w[1])) { assert.ok(Number.isNaN(g[0]) || Number.isNaN(g[1]), `${where}: ${g}, want NaN in ${w}`); continue; }
        for (const part of [0, 1]) assert.ok(Math.abs(g[part]! - w[part]!) <= tol * scale[q]!, `${where} part ${part}: ${g[part]}, want ${w[part]}`);
      }
    });
  }
});
