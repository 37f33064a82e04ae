/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex trsm kernels (ztrsm/) as
 * their launcher plans and launches them (on a device that records the kernel, its launch and the
 * pointer tables it uploads), compiled as C++ for the host (test/helpers/ztrsm-host-harness.cpp)
 * and run a thread per CUDA thread, against the complex reference (cpu/complex/ztrsm.ts): every
 * side / uplo / trans / diag, both element types, triangles of order 1 to 32, strided and list
 * batches with ragged leading dimensions and gaps, more vectors than a pass takes (the passes over
 * blockIdx.y), complex alpha; alpha = 0 (B zero, the NaN-filled A not read) and singular triangles
 * (a zero on the diagonal: NaN exactly where the reference has it) and subnormal diagonal entries
 * (X finite: divided by, not multiplied by an overflowing reciprocal). Everything a solve must not
 * read is NaN (test/helpers/ztrsm-data.ts), and every pair outside B must come back bit for bit.
 * Both designs: as planned, and the columns design forced at orders 1 to 32 (every variant once,
 * part-full blocks, several matrices a block and vectors a thread, B's first pass loaded before
 * or after the triangles, passes over blockIdx.y, the specials again). A check of the CUDA source without a GPU; the GPU's own: test/gpu/ztrsm.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { ComplexScalar } from '../../src/core/op-specs.js';
import type { Storage } from '../../src/core/storage.js';
import { cpuTrsmComplex } from '../../src/cpu/complex/ztrsm.js';
import { triangleShape } from '../../src/cuda/kernels/common/triangle-warp.js';
import { complexTrsmCuda, type ZtrsmForce } from '../../src/cuda/kernels/ztrsm/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';
import { plantSubnormalDiagonal } from '../helpers/subnormal-diagonal.js';
import { compareComplex, fillComplexTriangle, variantName, ZTRSM_VARIANTS, ztrsmTolerance, type ZtrsmCase } from '../helpers/ztrsm-data.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/ztrsm-host-harness.cpp');

type Form = 'strided' | 'list';
interface Case extends ZtrsmCase {
  dtype: DType; order: number; vectors: number; count: number; formA: Form; formB: Form;
  alpha: ComplexScalar; zeroAt: number;
  /** Where T's diagonal holds a subnormal entry whose reciprocal overflows, X finite (test/helpers/subnormal-diagonal.ts). */
  tinyAt?: number;
  /** Pins the design and its choices (the columns design at any order, its matrices a block and vectors a thread). */
  force?: ZtrsmForce;
}

/** (order, vectors) the variants cycle through: 1 and 32, odd orders, vectors past a pass (4). */
const SHAPES: readonly (readonly [number, number])[] = [[1, 3], [5, 1], [13, 6], [32, 5], [7, 9], [24, 2], [31, 4], [16, 11]];

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) {
    for (const v of ZTRSM_VARIANTS) {
      const [order, vectors] = SHAPES[i % SHAPES.length]!;
      out.push({ ...v, dtype, order, vectors, count: 3, formA: i % 3 === 2 ? 'list' : 'strided', formB: i % 4 === 1 ? 'list' : 'strided', alpha: [0.75, -1.25], zeroAt: -1 });
      i++;
    }
    // alpha = 0: B zero whatever A holds (here NaN everywhere); alpha = 1: no scaling.
    out.push({ side: 'left', uplo: 'lower', transA: 'C', diag: 'nonunit', dtype, order: 9, vectors: 5, count: 2, formA: 'strided', formB: 'list', alpha: [0, 0], zeroAt: -1 });
    out.push({ side: 'right', uplo: 'upper', transA: 'N', diag: 'nonunit', dtype, order: 6, vectors: 7, count: 2, formA: 'list', formB: 'strided', alpha: [1, 0], zeroAt: -1 });
    // A zero on the diagonal: NaN from that row (column) on, where the reference has it.
    out.push({ side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', dtype, order: 8, vectors: 3, count: 3, formA: 'strided', formB: 'strided', alpha: [1, 0.5], zeroAt: 5 });
    out.push({ side: 'right', uplo: 'lower', transA: 'C', diag: 'nonunit', dtype, order: 12, vectors: 4, count: 2, formA: 'list', formB: 'strided', alpha: [-1, 0], zeroAt: 3 });
  }
  return [...out, ...columnsCases()];
}

/**
 * The columns design (generate-columns.ts), forced: (order, vectors, matrices a block, vectors a
 * thread), with 3 matrices so that a block is often part full; vectors past a pass (13 / 40: two
 * passes of 20 lanes; 31 / 70 with 2 a thread: two passes of 18 lanes), order 1 and 32.
 */
const COLUMN_SHAPES: readonly (readonly [number, number, number, number])[] = [
  [1, 9, 2, 1], [9, 8, 1, 1], [13, 40, 2, 1], [32, 12, 3, 2], [17, 33, 1, 1], [24, 5, 4, 2], [31, 70, 1, 2], [32, 32, 2, 1],
];

function columnsCases(): Case[] {
  const out: Case[] = [];
  ZTRSM_VARIANTS.forEach((v, i) => {
    const [order, vectors, matrices, rhs] = COLUMN_SHAPES[i % COLUMN_SHAPES.length]!;
    out.push({
      ...v, dtype: i % 2 === 0 ? 'float64' : 'float32', order, vectors, count: 3, formA: i % 3 === 1 ? 'list' : 'strided', formB: i % 4 === 2 ? 'list' : 'strided',
      alpha: [0.75, -1.25], zeroAt: -1, force: { design: 'columns', matrices, rhs, early: i % 5 !== 4 },
    });
  });
  const columns = (matrices: number, rhs: number): ZtrsmForce => ({ design: 'columns', matrices, rhs });
  for (const dtype of ['float64', 'float32'] as const) {
    out.push({ side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', dtype, order: 20, vectors: 9, count: 3, formA: 'strided', formB: 'list', alpha: [0, 0], zeroAt: -1, force: columns(2, 1) });
    out.push({ side: 'left', uplo: 'upper', transA: 'C', diag: 'nonunit', dtype, order: 11, vectors: 10, count: 2, formA: 'list', formB: 'strided', alpha: [1, 0], zeroAt: -1, force: columns(2, 2) });
    out.push({ side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', dtype, order: 16, vectors: 9, count: 3, formA: 'strided', formB: 'strided', alpha: [1, 0.5], zeroAt: 6, force: columns(2, 1) });
    out.push({ side: 'right', uplo: 'upper', transA: 'C', diag: 'nonunit', dtype, order: 30, vectors: 12, count: 2, formA: 'list', formB: 'strided', alpha: [-1, 0], zeroAt: 0, force: columns(1, 1) });
    // A subnormal diagonal entry: divided by, not multiplied by its reciprocal (which overflows).
    out.push({ side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', dtype, order: 13, vectors: 40, count: 3, formA: 'strided', formB: 'strided', alpha: [0.75, -1.25], zeroAt: -1, tinyAt: 5, force: columns(2, 1) });
    out.push({ side: 'right', uplo: 'upper', transA: 'C', diag: 'nonunit', dtype, order: 20, vectors: 9, count: 2, formA: 'list', formB: 'strided', alpha: [1, 0], zeroAt: -1, tinyAt: 19, force: columns(2, 2) });
    out.push({ side: 'left', uplo: 'upper', transA: 'T', diag: 'nonunit', dtype, order: 8, vectors: 3, count: 3, formA: 'strided', formB: 'list', alpha: [1, 0.5], zeroAt: -1, tinyAt: 0 });
  }
  return out;
}

/** Matrix places in the buffer (pairs): ld = rows + 0..2, gaps of 1..3 (even spacing when strided). */
interface Layout { rows: number; cols: number; ld: number; offsets: number[] }
function place(rng: Rng, at: { next: number }, rows: number, cols: number, count: number, form: Form): Layout {
  const ld = Math.max(1, rows + rng.int(0, 2));
  const stride = ld * cols + rng.int(1, 3);
  const offsets: number[] = [];
  for (let q = 0; q < count; q++) { offsets.push(at.next); at.next += form === 'strided' ? stride : ld * cols + rng.int(1, 3); }
  return { rows, cols, ld, offsets };
}
function batchOf<S>(buffer: S, l: Layout, form: Form, dtype: 'complex128' | 'complex64'): Batch<S> {
  const data = buffer as unknown as Storage;
  if (form === 'list') return list(l.offsets.map((offset) => ({ data, offset })), { rows: l.rows, cols: l.cols, ld: l.ld, dtype }) as unknown as Batch<S>;
  const stride = l.offsets.length > 1 ? l.offsets[1]! - l.offsets[0]! : l.ld * l.cols;
  return strided(data, { rows: l.rows, cols: l.cols, ld: l.ld, stride, offset: l.offsets[0]!, count: l.offsets.length, dtype }) as unknown as Batch<S>;
}
/** The matrix of B that pair e lies in, or -1. */
const matrixOf = (l: Layout) => (e: number): number => l.offsets.findIndex((o) => e >= o && e < o + l.ld * l.cols && (e - o) % l.ld < l.rows);

interface Prepared { c: Case; dir: string; exe: string; input: string; defines: string[]; entry: string; want: Float64Array; lb: Layout; len: number }

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(7100 + index);
  const round = (x: number): number => (c.dtype === 'float32' ? Math.fround(x) : x);
  const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const [rows, cols] = c.side === 'left' ? [c.order, c.vectors] : [c.vectors, c.order];
  const at = { next: 3 };
  const la = place(rng, at, c.order, c.order, c.count, c.formA);
  const lb = place(rng, at, rows, cols, c.count, c.formB);
  const len = at.next + 2;
  const before = new Float64Array(2 * len).fill(NaN);
  for (const o of la.offsets) {
    if (c.alpha[0] === 0 && c.alpha[1] === 0) continue;   // A left all NaN: alpha = 0 must not read it
    fillComplexTriangle(rng, before, o, la.ld, c.order, c.uplo, c.diag, c.zeroAt);
  }
  lb.offsets.forEach((o) => { for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) { const e = 2 * (o + i + j * lb.ld); before[e] = rng.uniform(); before[e + 1] = rng.uniform(); } });
  if (c.tinyAt !== undefined) {
    const spec = { single: c.dtype === 'float32', parts: 2, uplo: c.uplo, side: c.side, order: c.order, vectors: c.vectors, k: c.tinyAt } as const;
    plantSubnormalDiagonal(spec, before, la, before, lb);
  }
  for (let f = 0; f < before.length; f++) before[f] = round(before[f]!);
  const want = before.slice();
  const side = { side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha };
  cpuTrsmComplex({ ...side, a: batchOf(want, la, c.formA, 'complex128'), b: batchOf(want, lb, c.formB, 'complex128') });
  if (c.dtype === 'float32') for (let f = 0; f < want.length; f++) want[f] = Math.fround(want[f]!);

  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const bytes = c.dtype === 'float64' ? 16 : 8;
  const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: RECORDED_BASE, byteLength: len * bytes, disposed: false, dispose() {} };
  complexTrsmCuda(dev, { ...side, a: batchOf(buffer, la, c.formA, ctype), b: batchOf(buffer, lb, c.formB, ctype) }, { force: c.force });
  assert.equal(recorded.length, 1, 'one launch');
  const r = recorded[0]!;
  if (c.force?.design === 'columns') assert.match(r.src.entry, /_cols_/, 'the columns design');
  const ops = [0, 1].map((o) => operandLine(r, o, bytes));
  assert.equal(Number(r.args[10]!.value), triangleShape(c.side, rows, cols).vectors, 'nrhs: the vectors');
  const input = [
    `${r.config.grid[0]} ${r.config.grid[1]} ${r.config.block[0]} ${c.count} ${len}`,
    ...ops.map((o) => o.line),
    `${c.vectors} ${c.alpha[0]} ${c.alpha[1]}`,
    ...Array.from({ length: len }, (_, e) => `${before[2 * e]} ${before[2 * e + 1]}`),
  ].join('\n') + '\n';
  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), r.src.source);
  const defines = [`-DENTRY=${r.src.entry}`, ...ops.flatMap((o, i) => (o.pointer ? [`-DP${'AB'[i]}`] : []))];
  return { c, dir, exe: join(dir, 'h'), input, defines, entry: r.src.entry, want, lb, len };
}


describe('complex trsm kernels run on the host', { skip, timeout: 1_800_000 }, () => {
  const all = cases();
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-ztrsm-')) : '';
  const prepared = skip === undefined ? all.map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of all.entries()) {
    const extra = c.zeroAt >= 0 ? `, T(${c.zeroAt}, ${c.zeroAt}) = 0` : c.tinyAt !== undefined ? `, T(${c.tinyAt}, ${c.tinyAt}) subnormal` : c.alpha[0] === 1 && c.alpha[1] === 0 ? ', alpha 1' : c.alpha[0] === 0 ? ', alpha 0' : '';
    const design = c.force?.design === 'columns' ? `, columns ${c.force.matrices} a block, ${c.force.rhs} a thread${c.force.early === false ? ', B after the triangles' : ''}` : '';
    it(`${variantName(c)} ${c.dtype === 'float64' ? 'complex128' : 'complex64'} order ${c.order}, ${c.vectors} vectors, A ${c.formA}, B ${c.formB}${extra}${design}`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      const lines = r.stdout.toString().trim().split('\n');
      assert.equal(lines.length, p.len, `${p.entry}: the buffer back`);
      const got = new Float64Array(2 * p.len);
      lines.forEach((line, e) => { const [x, y] = line.split(' '); got[2 * e] = parseHarnessNumber(x!); got[2 * e + 1] = parseHarnessNumber(y!); });
      if (c.alpha[0] === 0 && c.alpha[1] === 0) {
        const inB = matrixOf(p.lb);
        got.forEach((v, f) => { if (inB(Math.floor(f / 2)) >= 0) assert.ok(Object.is(v, 0), `${p.entry}: alpha = 0 leaves float ${f} = ${v}`); });
      }
      if (c.zeroAt >= 0) assert.ok(p.want.some((v, f) => Number.isNaN(v) && matrixOf(p.lb)(Math.floor(f / 2)) >= 0), 'the singular case has NaN in the reference');
      if (c.tinyAt !== undefined) {
        const inB = matrixOf(p.lb);
        assert.ok(p.want.every((v, f) => inB(Math.floor(f / 2)) < 0 || Number.isFinite(v)), 'the subnormal case is finite in the reference');
      }
      compareComplex(got, p.want, matrixOf(p.lb), ztrsmTolerance(c.dtype, c.order), `${p.entry} (${variantName(c)})`);
    });
  }
});
