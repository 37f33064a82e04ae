/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex recursions above order 32
 * (complexTrsmCuda, complexHerkCuda, complexPotrfCuda, complexPosvCuda) as their launchers run them, every launch
 * in order: on a device that records each kernel, its launch and the pointer tables uploaded,
 * then each recorded kernel compiled as C++ for the host with its family's harness (ztrsm, zherk,
 * zpotrf and zgemm-host-harness.cpp, a thread per CUDA thread) and run on one buffer holding every
 * matrix, the buffer passed on from launch to launch; the info kernels (info_zero, the combine)
 * applied here as their one-line sources say. So the generated leaf kernels and GEMM kernels run on
 * the recursion's sub-blocks (offsets in the strided and the pointer form) as on a GPU. Checked
 * against the complex reference (cpu/complex/) on a copy of the buffer: info exactly (a matrix
 * failing in the second half: n1 + k; NaN), results within a backward-error tolerance, a failed
 * matrix's columns before its failure, and every pair the call must not write (outside the
 * matrices, the other triangle, A of trsm and herk) unchanged. A check of the CUDA sources without
 * a GPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Side, Uplo } from '../../src/core/enums.js';
import type { ComplexOp, ComplexScalar } from '../../src/core/op-specs.js';
import { cpuPotrfComplex } from '../../src/cpu/complex/zpotrf.js';
import { cpuHerkComplex } from '../../src/cpu/complex/zrankk.js';
import { cpuPosvComplex } from '../../src/cpu/complex/zsolve.js';
import { cpuTrsmComplex } from '../../src/cpu/complex/ztrsm.js';
import { splitPoint } from '../../src/cuda/kernels/common/split.js';
import { complexHerkCuda } from '../../src/cuda/kernels/zherk/index.js';
import { complexPosvCuda, complexPotrfCuda } from '../../src/cuda/kernels/zpotrf/index.js';
import { complexTrsmCuda } from '../../src/cuda/kernels/ztrsm/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { get, randomHpd, type Z } from '../helpers/complex.js';
import { compileHarnesses, HOST_EMULATION_SKIP, NO_MMA_CARD, RECORDED_BASE, recordingDevice, type HarnessBuild, type Recorded } from '../helpers/recording-device.js';
import { batchOf, HARNESSES, placeAt, runChain, stepsOf, type Form } from '../helpers/zchain.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;
const SENTINEL = 12345.5;
const INFO_BASE = 0x2000000n;


const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);
const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

// ---------------------------------------------------------------------------------------------
// Cases.

type Case =
  | { op: 'trsm'; dtype: DType; form: Form; count: number; t: number; side: Side; uplo: Uplo; transA: ComplexOp; alpha: ComplexScalar; nvec: number }
  | { op: 'herk'; dtype: DType; form: Form; count: number; n: number; uplo: Uplo; trans: 'N' | 'C'; k: number; alpha: number; beta: number }
  | { op: 'potrf'; dtype: DType; form: Form; count: number; n: number; uplo: Uplo }
  | { op: 'posv'; dtype: DType; form: Form; count: number; n: number; uplo: Uplo; nrhs: number };

const CASES: readonly Case[] = [
  { op: 'trsm', dtype: 'float64', form: 'strided', count: 2, t: 47, side: 'left', uplo: 'lower', transA: 'C', alpha: [0.5, -1], nvec: 3 },
  { op: 'trsm', dtype: 'float32', form: 'list', count: 2, t: 70, side: 'right', uplo: 'upper', transA: 'N', alpha: [1, 0], nvec: 2 },
  { op: 'trsm', dtype: 'float64', form: 'list', count: 2, t: 40, side: 'right', uplo: 'lower', transA: 'T', alpha: [-1, 0.25], nvec: 5 },
  { op: 'herk', dtype: 'float64', form: 'strided', count: 2, n: 47, uplo: 'lower', trans: 'N', k: 6, alpha: -1, beta: 0.5 },
  { op: 'herk', dtype: 'float32', form: 'list', count: 2, n: 40, uplo: 'upper', trans: 'C', k: 9, alpha: 1.5, beta: 1 },
  { op: 'potrf', dtype: 'float64', form: 'strided', count: 3, n: 47, uplo: 'lower' },
  { op: 'potrf', dtype: 'float32', form: 'list', count: 3, n: 70, uplo: 'upper' },
  { op: 'potrf', dtype: 'float64', form: 'list', count: 3, n: 66, uplo: 'lower' },
  { op: 'posv', dtype: 'float64', form: 'strided', count: 3, n: 47, uplo: 'lower', nrhs: 3 },
  { op: 'posv', dtype: 'float32', form: 'list', count: 3, n: 40, uplo: 'upper', nrhs: 2 },
];

const nameOf = (c: Case): string => {
  const t = c.dtype === 'float64' ? 'complex128' : 'complex64';
  if (c.op === 'trsm') return `trsm ${t} ${c.side} ${c.uplo} ${c.transA} t = ${c.t}, ${c.nvec} vectors, ${c.count} ${c.form}`;
  if (c.op === 'herk') return `herk ${t} ${c.uplo} ${c.trans} n = ${c.n}, k = ${c.k}, ${c.count} ${c.form}`;
  return `${c.op} ${t} ${c.uplo} n = ${c.n}${c.op === 'posv' ? `, ${c.nrhs} right-hand sides` : ''}, ${c.count} ${c.form} (good, failing at n1 + 3, NaN in the second half)`;
};

describe('complex recursions above 32: every launch on the host, in order', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zchain-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [index, c] of CASES.entries()) {
    it(nameOf(c), async () => {
      const rng = new Rng(900 + index);
      const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
      const bytes = c.dtype === 'float64' ? 16 : 8;
      const at = { next: 3 };
      const eps = DTYPE_EPS[c.dtype];
      // Layouts: A (and B or C).
      const [ar, ac, br, bc] = c.op === 'trsm' ? [c.t, c.t, ...(c.side === 'left' ? [c.t, c.nvec] : [c.nvec, c.t])] as const
        : c.op === 'herk' ? [...(c.trans === 'N' ? [c.n, c.k] : [c.k, c.n]), c.n, c.n] as const : [c.n, c.n, c.n, c.op === 'posv' ? c.nrhs : 0] as const;
      const la = placeAt(rng, at, ar, ac, c.count, c.form);
      const lb = c.op === 'potrf' ? undefined : placeAt(rng, at, br, bc, c.count, c.form);
      const len = at.next + 2;
      const buf = new Float64Array(2 * len).fill(SENTINEL);
      const put = (e: number, re: number, im: number): void => { buf[2 * e] = round(c.dtype, re); buf[2 * e + 1] = round(c.dtype, im); };
      const factors = c.op === 'potrf' || c.op === 'posv';
      const n1 = factors ? splitPoint(c.n, 32) : 0;
      for (let q = 0; q < c.count; q++) {
        const oa = la.offsets[q]!;
        if (c.op === 'trsm') {
          for (let j = 0; j < c.t; j++) for (let i = 0; i < c.t; i++) {
            const e = oa + i + j * la.ld;
            if (i === j) put(e, 2 + rng.uniform(0, 1), rng.uniform());
            else if (inTriangle(c.uplo, i, j)) put(e, rng.uniform() / (2 * c.t), rng.uniform() / (2 * c.t));
            else put(e, NaN, NaN);
          }
        } else if (c.op === 'herk') {
          for (let j = 0; j < ac; j++) for (let i = 0; i < ar; i++) put(oa + i + j * la.ld, rng.uniform(), rng.uniform());
        } else {
          const h: Z = randomHpd(rng, c.n);
          for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
            const e = oa + i + j * la.ld;
            if (!inTriangle(c.uplo, i, j)) { put(e, NaN, NaN); continue; }
            const [re, im] = get(h, i, j);
            put(e, re, i === j ? NaN : im);
          }
          if (q === 1) put(oa + (n1 + 3) * (la.ld + 1), -1, 0);
          if (q === 2) {
            const [i, j] = c.uplo === 'lower' ? [c.n - 1, n1 + 1] : [n1 + 1, c.n - 1];
            buf[2 * (oa + i + j * la.ld)] = NaN;
          }
        }
        if (lb !== undefined) {
          const ob = lb.offsets[q]!;
          for (let j = 0; j < bc; j++) for (let i = 0; i < br; i++) {
            const e = ob + i + j * lb.ld;
            if (c.op === 'herk' && !inTriangle(c.uplo, i, j)) put(e, NaN, NaN);
            else put(e, rng.uniform(), c.op === 'herk' && i === j ? NaN : rng.uniform());
          }
        }
      }
      const before = buf.slice();

      // The launcher on the recording device, then its launches in order on the host.
      const recorded: Recorded[] = [];
      const dev = recordingDevice(recorded, NO_MMA_CARD);
      const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: RECORDED_BASE, byteLength: len * bytes, disposed: false, dispose() {} };
      const info: DeviceArray = { kind: 'device', dtype: 'int32', length: c.count, device: 0, ptr: INFO_BASE, byteLength: 4 * c.count, disposed: false, dispose() {} };
      const a = batchOf(buffer, la, ar, ac, c.form, ctype);
      const kept = lb === undefined ? [] : lb.offsets.map((off) => before.slice(2 * off, 2 * (off + lb.ld * bc)));
      const b = lb === undefined ? undefined : batchOf(buffer, lb, br, bc, c.form, ctype);
      if (c.op === 'trsm') complexTrsmCuda(dev, { side: c.side, uplo: c.uplo, transA: c.transA, diag: 'nonunit', alpha: c.alpha, a, b: b! });
      else if (c.op === 'herk') complexHerkCuda(dev, { uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a, c: b! });
      else if (c.op === 'potrf') complexPotrfCuda(dev, { uplo: c.uplo, a, info });
      else complexPosvCuda(dev, { uplo: c.uplo, a, b: b!, info });
      assert.ok(recorded.length > 2, 'the recursion: several launches');
      const builds = new Map<string, HarnessBuild & { key: string }>();
      const steps = stepsOf(recorded, bytes, root, builds);
      assert.ok(steps.some((s) => s.family === 'zgemm') || factors, 'GEMM updates');
      if (c.op === 'posv') assert.deepEqual(steps.filter((s) => s.family === 'copy').map((s) => s.r.src.entry.split('_')[1]), ['all', 'failed'], 'B aside, and back where info > 0');
      for (const family of ['ztrsm', 'zherk', 'zpotrf', 'zgemm'] as const) {
        const mine = [...builds.values()].filter((x) => x.key.startsWith(`${family}/`));
        if (mine.length > 0) await compileHarnesses(resolve(`test/helpers/${HARNESSES[family]}`), mine);
      }
      const infos = new Map<bigint, Int32Array>();
      runChain(steps, buf, len, bytes, infos);

      // The reference on a copy of the input.
      const want = before.slice();
      const wantInfo = new Int32Array(c.count);
      const ra = batchOf(want, la, ar, ac, c.form, 'complex128');
      const rb = lb === undefined ? undefined : batchOf(want, lb, br, bc, c.form, 'complex128');
      if (c.op === 'trsm') cpuTrsmComplex({ side: c.side, uplo: c.uplo, transA: c.transA, diag: 'nonunit', alpha: c.alpha, a: ra, b: rb! });
      else if (c.op === 'herk') cpuHerkComplex({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: ra, c: rb! });
      else if (c.op === 'potrf') cpuPotrfComplex({ uplo: c.uplo, a: ra, info: wantInfo });
      else cpuPosvComplex({ uplo: c.uplo, a: ra, b: rb!, info: wantInfo });
      if (factors) {
        assert.deepEqual([...infos.get(INFO_BASE)!], [...wantInfo], 'info');
        assert.equal(wantInfo[0], 0);
        assert.equal(wantInfo[1], n1 + 4, 'the second half: n1 + k');
        assert.ok(wantInfo[2]! > n1, 'NaN in the second half');
      }

      // posv: a failed matrix's B as given, bit for bit; then the factor is checked as potrf's.
      if (c.op === 'posv') {
        lb!.offsets.forEach((off, q) => {
          const got = buf.slice(2 * off, 2 * (off + lb!.ld * bc));
          if (wantInfo[q] !== 0) assert.deepEqual([...got].map(String), [...kept[q]!].map(String), `matrix ${q}: B kept`);
          else for (let f = 0; f < got.length; f++) {
            const e = f >> 1, i = e % lb!.ld;
            if (i >= c.n) continue;
            assert.ok(Math.abs(got[f]! - want[2 * off + f]!) <= 64 * c.n * eps * 16, `matrix ${q} X float ${f}: ${got[f]}, want ${want[2 * off + f]}`);
          }
        });
      }
      // Which pairs are compared, and how: owner(e) = [matrix, i, j] of the output, or undefined (must be unchanged).
      const out = factors ? la : lb!;
      const [rows, cols] = factors ? [c.n, c.n] : [br, bc];
      const scale = new Float64Array(c.count).fill(1);
      const owner = new Map<number, [number, number, number]>();
      const skipB = new Set<number>();
      if (c.op === 'posv') lb!.offsets.forEach((off) => { for (let j = 0; j < bc; j++) for (let i = 0; i < br; i++) skipB.add(off + i + j * lb!.ld); });
      out.offsets.forEach((off, q) => {
        for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
          owner.set(off + i + j * out.ld, [q, i, j]);
          for (const part of [0, 1]) { const w = Math.abs(want[2 * (off + i + j * out.ld) + part]!); if (Number.isFinite(w) && w !== SENTINEL) scale[q] = Math.max(scale[q]!, w); }
        }
      });
      const order = c.op === 'trsm' ? c.t : c.op === 'herk' ? c.k + 2 : c.n;
      const tol = 64 * Math.max(8, order) * eps;
      for (let e = 0; e < len; e++) {
        if (skipB.has(e)) continue;   // posv's B: checked above
        const o = owner.get(e);
        const [g, w, x] = [[buf[2 * e]!, buf[2 * e + 1]!], [want[2 * e]!, want[2 * e + 1]!], [before[2 * e]!, before[2 * e + 1]!]];
        const where = `pair ${e}${o ? ` (matrix ${o[0]} (${o[1]}, ${o[2]}))` : ''}`;
        const unchanged = (): void => assert.ok(Object.is(g[0], x[0]) && Object.is(g[1], x[1]), `${where} changed: ${g}, was ${x}`);
        if (o === undefined) { unchanged(); continue; }
        const [q, i, j] = o;
        if (c.op !== 'trsm' && !inTriangle(c.uplo, i, j)) { unchanged(); continue; }
        if (factors && wantInfo[q] !== 0) {
          // A failed matrix: the factor's columns before the failing one, and its diagonal element.
          const col = c.uplo === 'lower' ? j : i, k = wantInfo[q]! - 1;
          if (col > k || (col === k && i !== j)) continue;
        }
        if (c.op !== 'trsm' && i === j) assert.ok(Object.is(g[1], 0) || (factors && wantInfo[q] !== 0), `${where}: the diagonal's imaginary part ${g[1]}`);
        if (Number.isNaN(w[0]) || Number.isNaN(w[1])) { assert.ok(Number.isNaN(g[0]) || Number.isNaN(g[1]), `${where}: ${g}, want NaN in ${w}`); continue; }
        for (const part of [0, 1]) assert.ok(Math.abs(g[part]! - w[part]!) <= tol * scale[q]!, `${where} part ${part}: ${g[part]}, want ${w[part]}`);
      }
    });
  }
});
