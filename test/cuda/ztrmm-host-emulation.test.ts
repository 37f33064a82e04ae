/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex trmm (kernels/ztrmm/:
 * complexTrmmCuda) and zsyrk (kernels/zherk/: complexSyrkCuda) as their launchers run them, every
 * launch in order: on a device that records each kernel, its launch and the pointer tables uploaded,
 * then each recorded kernel compiled as C++ for the host with its family's harness (the trmm kernels
 * with ztrsm-host-harness.cpp, whose arguments they take; zsyrk's with zherk-host-harness.cpp -DSYRK;
 * the complex GEMM with zgemm-host-harness.cpp) and run on one buffer, passed on from launch to
 * launch (test/helpers/zchain.ts). So the leaves and the recursion's GEMM updates run on the
 * sub-blocks as on a GPU, in place.
 *
 * trmm: every side / uplo / trans / diag in both element types, triangles of order 1, 5, 31, 32, 33,
 * 47, 64, 65 and 100 (the leaf, one and two levels of the recursion), 1, 3 and 40 vectors (past a
 * pass of 4), complex alpha, alpha = 1 (no scaling) and alpha = 0 (B zero, A and B all NaN and not
 * read). zsyrk: lower and upper, 'N' and 'T', C of order 1 to 100, k from 0 to 40, complex alpha and
 * beta, beta = 0 (C's triangle NaN, not read), alpha = 0 (A NaN, not read), k = 0, beta = 1, and
 * alpha = 0 with beta = 1 (zsyrk's early return: no launch, C as it was). Strided and list batches,
 * leading dimensions past the rows, gaps between matrices. Against the complex reference
 * (cpu/complex/ztrmm.ts, zrankk.ts) on a copy of the buffer: the written part within
 * 64 max(8, t) eps of its matrix's largest entry (t the order of the triangle, or k + 2), NaN where
 * the reference has it, and every other pair (outside the matrices, A, C's other triangle, where
 * the triangles are NaN) unchanged bit for bit. A check of the CUDA sources without a GPU; the
 * GPU's own: test/gpu/ztrmm.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Diag, Side, Uplo } from '../../src/core/enums.js';
import type { ComplexOp, ComplexScalar } from '../../src/core/op-specs.js';
import { cpuTrmmComplex } from '../../src/cpu/complex/ztrmm.js';
import { cpuSyrkComplex } from '../../src/cpu/complex/zrankk.js';
import { complexTrmmCuda } from '../../src/cuda/kernels/ztrmm/index.js';
import { complexSyrkCuda } from '../../src/cuda/kernels/zherk/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, NO_MMA_CARD, RECORDED_BASE, recordingDevice, type HarnessBuild, type Recorded } from '../helpers/recording-device.js';
import { batchOf, HARNESSES, placeAt, runChain, stepsOf, type Form, type Layout, type Step } from '../helpers/zchain.js';
import { fillComplexTriangle, ZTRSM_VARIANTS } from '../helpers/ztrsm-data.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;
const SENTINEL = 12345.5;

interface TrmmCase {
  op: 'trmm'; dtype: DType; side: Side; uplo: Uplo; transA: ComplexOp; diag: Diag; t: number; vectors: number;
  alpha: ComplexScalar; formA: Form; formB: Form;
}
interface SyrkCase {
  op: 'syrk'; dtype: DType; uplo: Uplo; trans: 'N' | 'T'; n: number; k: number; alpha: ComplexScalar; beta: ComplexScalar; formA: Form; formC: Form;
}
type Case = TrmmCase | SyrkCase;

const ORDERS = [1, 5, 31, 32, 33, 47, 64, 65, 100];
const VECTORS = [1, 3, 40];
const ALPHAS: readonly ComplexScalar[] = [[0.75, -1.25], [1, 0], [-0.5, 2]];
const forms = (i: number): [Form, Form] => [i % 3 === 2 ? 'list' : 'strided', i % 4 === 1 ? 'list' : 'strided'];

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) {
    for (const v of ZTRSM_VARIANTS) {
      const [formA, formB] = forms(i);
      out.push({ op: 'trmm', dtype, ...v, t: ORDERS[i % ORDERS.length]!, vectors: VECTORS[(i + Math.floor(i / ORDERS.length)) % 3]!, alpha: ALPHAS[i % 3]!, formA, formB });
      i++;
    }
    // alpha = 0: B zero, A and B all NaN (neither read); in the leaf and through the recursion.
    out.push({ op: 'trmm', dtype, side: 'left', uplo: 'lower', transA: 'C', diag: 'nonunit', t: 5, vectors: 3, alpha: [0, 0], formA: 'strided', formB: 'list' });
    out.push({ op: 'trmm', dtype, side: 'right', uplo: 'upper', transA: 'T', diag: 'unit', t: 65, vectors: 3, alpha: [0, 0], formA: 'list', formB: 'strided' });
  }
  const SYRK: readonly (readonly [number, number])[] = [[1, 3], [5, 40], [31, 7], [32, 32], [33, 5], [47, 1], [64, 9], [65, 2], [100, 6], [13, 33]];
  let s = 0;
  for (const dtype of ['float64', 'float32'] as const) {
    for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'T'] as const) for (let twice = 0; twice < 2; twice++) {
      const [n, k] = SYRK[s % SYRK.length]!;
      const [formA, formC] = forms(s);
      out.push({ op: 'syrk', dtype, uplo, trans, n, k, alpha: [1.5, -0.25], beta: [-0.5, 0.75], formA, formC });
      s++;
    }
    out.push({ op: 'syrk', dtype, uplo: 'upper', trans: 'T', n: 9, k: 4, alpha: [-0.75, 1], beta: [0, 0], formA: 'strided', formC: 'list' });
    out.push({ op: 'syrk', dtype, uplo: 'lower', trans: 'N', n: 47, k: 5, alpha: [1, 0], beta: [0, 0], formA: 'list', formC: 'strided' });
    out.push({ op: 'syrk', dtype, uplo: 'lower', trans: 'N', n: 6, k: 3, alpha: [0, 0], beta: [2, -1], formA: 'list', formC: 'strided' });
    out.push({ op: 'syrk', dtype, uplo: 'upper', trans: 'N', n: 40, k: 3, alpha: [0, 0], beta: [0.5, 0.5], formA: 'strided', formC: 'strided' });
    out.push({ op: 'syrk', dtype, uplo: 'lower', trans: 'T', n: 4, k: 0, alpha: [1, 1], beta: [-1, 0], formA: 'strided', formC: 'strided' });
    out.push({ op: 'syrk', dtype, uplo: 'upper', trans: 'N', n: 32, k: 32, alpha: [1, -1], beta: [1, 0], formA: 'strided', formC: 'list' });
    out.push({ op: 'syrk', dtype, uplo: 'lower', trans: 'T', n: 7, k: 5, alpha: [0, 0], beta: [1, 0], formA: 'strided', formC: 'strided' });
  }
  return out;
}

const typeName = (d: DType): string => (d === 'float64' ? 'complex128' : 'complex64');
const scalar = (z: ComplexScalar): string => `(${z[0]}, ${z[1]})`;
const nameOf = (c: Case): string => c.op === 'trmm'
  ? `trmm ${c.side}/${c.uplo}/${c.transA}/${c.diag} ${typeName(c.dtype)} order ${c.t}, ${c.vectors} vectors, alpha ${scalar(c.alpha)}, A ${c.formA}, B ${c.formB}`
  : `syrk ${c.uplo}/${c.trans} ${typeName(c.dtype)} n = ${c.n}, k = ${c.k}, alpha ${scalar(c.alpha)}, beta ${scalar(c.beta)}, A ${c.formA}, C ${c.formC}`;
const isZero = (z: ComplexScalar): boolean => z[0] === 0 && z[1] === 0;
const isOne = (z: ComplexScalar): boolean => z[0] === 1 && z[1] === 0;
const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

/** Compiled harnesses across the cases, by family, defines and kernel text (a kernel two cases launch is built once). */
const compiled = new Map<string, HarnessBuild & { key: string }>();

async function buildAll(steps: Step[], builds: Map<string, HarnessBuild & { key: string }>): Promise<void> {
  const signature = (b: HarnessBuild & { key: string }): string => `${b.key}\n${readFileSync(join(b.dir, 'kernel.cu'), 'utf8')}`;
  const fresh = [...builds.values()].filter((b) => !compiled.has(signature(b)));
  for (const family of Object.keys(HARNESSES) as (keyof typeof HARNESSES)[]) {
    const mine = fresh.filter((b) => b.key.startsWith(`${family}/`));
    if (mine.length > 0) await compileHarnesses(resolve(`test/helpers/${HARNESSES[family]}`), mine);
  }
  for (const b of fresh) compiled.set(signature(b), b);
  for (const s of steps) if (s.build !== undefined) s.build = compiled.get(signature(s.build))!;
}

describe('complex trmm and zsyrk: every launch on the host, in order', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-ztrmm-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [index, c] of cases().entries()) {
    it(nameOf(c), async () => {
      const rng = new Rng(4700 + index);
      const ctype = typeName(c.dtype) as 'complex128' | 'complex64';
      const bytes = c.dtype === 'float64' ? 16 : 8;
      const at = { next: 3 };
      // A (ar x ac) and the output (or rows x cols): B for trmm, C for zsyrk.
      const [ar, ac, rows, cols] = c.op === 'trmm'
        ? [c.t, c.t, ...(c.side === 'left' ? [c.t, c.vectors] : [c.vectors, c.t])] as const
        : [...(c.trans === 'N' ? [c.n, c.k] : [c.k, c.n]), c.n, c.n] as const;
      const count = 3;
      const la: Layout = placeAt(rng, at, ar, ac, count, c.formA);
      const lo: Layout = placeAt(rng, at, rows, cols, count, c.op === 'trmm' ? c.formB : c.formC);
      const len = at.next + 2;
      const buf = new Float64Array(2 * len).fill(SENTINEL);
      const put = (e: number, re: number, im: number): void => { buf[2 * e] = re; buf[2 * e + 1] = im; };
      const inTriangle = (i: number, j: number): boolean => c.op === 'trmm' || (c.uplo === 'lower' ? i >= j : i <= j);
      // What must not be read is NaN: A where alpha = 0, C's triangle where beta = 0 (and B where trmm's alpha = 0).
      const alphaZero = isZero(c.alpha);
      for (let q = 0; q < count; q++) {
        const oa = la.offsets[q]!;
        if (alphaZero) for (let j = 0; j < ac; j++) for (let i = 0; i < ar; i++) put(oa + i + j * la.ld, NaN, NaN);
        else if (c.op === 'trmm') fillComplexTriangle(rng, buf, oa, la.ld, c.t, c.uplo, c.diag);
        else for (let j = 0; j < ac; j++) for (let i = 0; i < ar; i++) put(oa + i + j * la.ld, rng.uniform(), rng.uniform());
        const notRead = c.op === 'trmm' ? alphaZero : isZero(c.beta);
        for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
          const e = lo.offsets[q]! + i + j * lo.ld;
          if (!inTriangle(i, j)) put(e, NaN, NaN);
          else if (notRead) put(e, NaN, NaN);
          else put(e, rng.uniform(), rng.uniform());
        }
      }
      for (let f = 0; f < buf.length; f++) buf[f] = round(c.dtype, buf[f]!);
      const before = buf.slice();

      // The launcher on the recording device, then its launches in order on the host.
      const recorded: Recorded[] = [];
      const dev = recordingDevice(recorded, NO_MMA_CARD);
      const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: RECORDED_BASE, byteLength: len * bytes, disposed: false, dispose() {} };
      const a = batchOf(buffer, la, ar, ac, c.formA, ctype);
      const o = batchOf(buffer, lo, rows, cols, c.op === 'trmm' ? c.formB : c.formC, ctype);
      if (c.op === 'trmm') complexTrmmCuda(dev, { side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha, a, b: o });
      else complexSyrkCuda(dev, { uplo: c.uplo, trans: c.trans, alpha: c.alpha, a, beta: c.beta, c: o });
      const early = c.op === 'syrk' && (alphaZero || c.k === 0) && isOne(c.beta);
      if (early) assert.equal(recorded.length, 0, "zsyrk's early return: no launch");
      else assert.ok(recorded.length >= 1, 'a launch');
      const order = c.op === 'trmm' ? c.t : c.n;
      if (order > 32) {
        const gemms = recorded.filter((r) => r.src.entry.includes('gemm')).length;
        assert.ok(alphaZero && c.op === 'trmm' ? gemms === 0 : gemms > 0, `the recursion's GEMM updates: ${gemms}`);
      }
      const builds = new Map<string, HarnessBuild & { key: string }>();
      // A folder per case: a build's executable, once compiled, is kept for the later cases that launch its kernel.
      const steps = stepsOf(recorded, bytes, join(root, `case${index}`), builds);
      await buildAll(steps, builds);
      runChain(steps, buf, len, bytes, new Map());

      // The reference on a copy of the input.
      const want = before.slice();
      const ra = batchOf(want, la, ar, ac, c.formA, 'complex128');
      const ro = batchOf(want, lo, rows, cols, c.op === 'trmm' ? c.formB : c.formC, 'complex128');
      if (c.op === 'trmm') cpuTrmmComplex({ side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha, a: ra, b: ro });
      else cpuSyrkComplex({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, a: ra, beta: c.beta, c: ro });

      // owner(e): [matrix, i, j] of a pair of the output (undefined: it must come back unchanged).
      const owner = new Map<number, [number, number, number]>();
      const scale = new Float64Array(count).fill(1);
      lo.offsets.forEach((off, q) => {
        for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
          if (!inTriangle(i, j)) continue;
          const e = off + i + j * lo.ld;
          owner.set(e, [q, i, j]);
          for (const part of [0, 1]) { const w = Math.abs(want[2 * e + part]!); if (Number.isFinite(w)) scale[q] = Math.max(scale[q]!, w); }
        }
      });
      const tol = 64 * Math.max(8, c.op === 'trmm' ? c.t : c.k + 2) * DTYPE_EPS[c.dtype];
      let written = 0;
      for (let e = 0; e < len; e++) {
        const [g, w, x] = [[buf[2 * e]!, buf[2 * e + 1]!], [want[2 * e]!, want[2 * e + 1]!], [before[2 * e]!, before[2 * e + 1]!]];
        const ow = owner.get(e);
        const where = `pair ${e}${ow ? ` (matrix ${ow[0]} (${ow[1]}, ${ow[2]}))` : ''}`;
        if (ow === undefined || early) {
          assert.ok(Object.is(g[0], x[0]) && Object.is(g[1], x[1]), `${where} changed: ${g}, was ${x}`);
          continue;
        }
        written++;
        if (c.op === 'trmm' && alphaZero) { assert.ok(g[0] === 0 && g[1] === 0, `${where}: alpha = 0 leaves ${g}`); continue; }
        for (const part of [0, 1]) {
          if (Number.isNaN(w[part])) { assert.ok(Number.isNaN(g[part]), `${where} part ${part}: ${g[part]}, want NaN`); continue; }
          assert.ok(Math.abs(g[part]! - w[part]!) <= tol * scale[ow[0]]!, `${where} part ${part}: ${g[part]}, want ${w[part]}`);
        }
      }
      assert.equal(written, early ? 0 : count * (c.op === 'trmm' ? rows * cols : (c.n * (c.n + 1)) / 2), 'the pairs compared');
    });
  }
});
