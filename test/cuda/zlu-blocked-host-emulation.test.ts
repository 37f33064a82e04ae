/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the blocked complex LU's own kernels
 * (complex-lu/generate-panel.ts: the panel and the laswp over pairs), compiled as C++ for the host
 * (test/helpers/zlu-panel-host-harness.cpp) and run a thread per CUDA thread, launched as
 * launch-blocked.ts launches them (the panel at A(off, off) of every matrix, m - off rows; the
 * laswp from a column, a block of 128 columns per grid row):
 * - the panel against the complex reference's zgetf2 on the same block (cpu/complex/zgetrf.ts):
 *   pivots (rows of the matrix: off + the panel's) and info exactly (off + k + 1 for a zero pivot,
 *   an info already set kept), the factors to rounding, NaN where the reference has NaN; panels of
 *   1 to 32 columns, 1 to 300 rows (more rows than threads), complex128 and complex64, strided and
 *   pointer forms, batches that mix random, singular (a zero column), NaN and tied-pivot matrices;
 * - the laswp against the interchanges by hand, forward and backward, more pivots than a chunk.
 * (gesv's copies of B are the real copy kernel over the pairs' parts, common/matrix-copy.ts.)
 * Every element outside what a kernel may write must come back bit for bit, and so must the
 * pivots outside the panel's. A check of the CUDA source without a GPU.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { cpuGetrfComplex } from '../../src/cpu/complex/zgetrf.js';
import { block } from '../../src/cuda/kernels/common/sub-blocks.js';
import { LASWP_THREADS } from '../../src/cuda/kernels/common/laswp.js';
import { complexLaswpSource, complexPanelSource, planComplexPanel } from '../../src/cuda/kernels/complex-lu/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, parseHarnessNumber } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';
import { kindOf, luMatrix } from '../helpers/zlu-data.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/zlu-panel-host-harness.cpp');
const SENTINEL = 12345.5;

type Form = 'strided' | 'pointer';
interface PanelCase { kind: 'panel'; dtype: DType; form: Form; rows: number; off: number; width: number; count: number }
interface LaswpCase { kind: 'laswp'; dtype: DType; form: Form; rows: number; cols: number; from: number; to: number; col: number; width: number; reverse: boolean; count: number }
type Case = PanelCase | LaswpCase;

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  const form = (): Form => (i++ % 2 === 1 ? 'pointer' : 'strided');
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [rows, off, width] of [[33, 0, 32], [33, 32, 1], [47, 32, 15], [64, 0, 32], [100, 64, 32], [129, 96, 32], [300, 0, 32], [300, 37, 5], [5, 0, 5], [40, 3, 1]] as const) {
      out.push({ kind: 'panel', dtype, form: form(), rows, off, width, count: 6 });
    }
    for (const [rows, cols, from, to, col, width, reverse] of [
      [100, 100, 32, 64, 0, 32, false], [100, 100, 32, 64, 64, 36, false], [47, 47, 0, 32, 32, 15, false],
      [700, 3, 0, 700, 0, 3, false], [700, 130, 0, 700, 0, 130, true], [70, 5, 0, 70, 0, 5, true],
    ] as const) {
      out.push({ kind: 'laswp', dtype, form: form(), rows, cols, from, to, col, width, reverse, count: 3 });
    }
  }
  return out;
}

interface Prepared {
  c: Case; dir: string; exe: string; input: string; defines: string[]; entry: string;
  before: Float64Array; want: Float64Array; wantPiv: Int32Array; wantInfo: Int32Array; len: number;
  /** Pairs the kernel may write (else bit for bit as before). */
  writable: Uint8Array;
}

/** The matrices of a case: strided at offset 3, ld rows + 1 (odd or even by rows), gaps of 2. */
function layout(rows: number, cols: number, count: number): { ld: number; stride: number; len: number } {
  const ld = rows + 1, stride = ld * cols + 2;
  return { ld, stride, len: 3 + stride * count + 2 };
}

function prepare(c: Case, index: number, root: string): Prepared {
  return prepareKernel(c, index, root);
}

function prepareKernel(c: PanelCase | LaswpCase, index: number, root: string): Prepared {
  const rng = new Rng(7000 + index);
  const round = (x: number): number => (c.dtype === 'float32' ? Math.fround(x) : x);
  const cols = c.kind === 'panel' ? c.off + c.width + 2 : c.cols;
  const { ld, stride, len } = layout(c.rows, cols, c.count);
  const before = new Float64Array(2 * len).fill(SENTINEL);
  const batch = strided(before, { rows: c.rows, cols, ld, stride, offset: 3, count: c.count, dtype: 'complex128' });
  for (let q = 0; q < c.count; q++) {
    const z = luMatrix(rng, c.rows, cols, c.kind === 'panel' ? kindOf(q) : 'random', q + index, round);
    // The panel's singular and NaN kinds act on its own columns: moved there from the matrix's first ones.
    const shift = c.kind === 'panel' ? c.off : 0;
    for (let j = 0; j < cols; j++) for (let i = 0; i < c.rows; i++) {
      const from = 2 * (i + ((j - shift + cols) % cols) * c.rows), e = 2 * (3 + q * stride + i + j * ld);
      before[e] = z.d[from]!; before[e + 1] = z.d[from + 1]!;
    }
  }
  const k = Math.min(c.rows, cols);
  const pivotStride = c.kind === 'laswp' ? c.rows : k;   // the laswp of B: a pivot per row
  const piv0 = new Int32Array(c.count * pivotStride).map((_, e) => -3 - e);
  const info0 = new Int32Array(c.count).map((_, q) => (q === 4 ? 2 : 0));   // an info already set (an earlier panel's) is kept
  const want = before.slice();
  const wantPiv = piv0.slice(), wantInfo = info0.slice();
  const writable = new Uint8Array(len);
  const wb = { ...batch, data: want };
  let ints: [number, number, number];
  let src: KernelSource;
  let grid: [number, number, number];
  let threads: number;
  const kind = c.form === 'pointer' ? 'pointer' : 'strided';
  let opOffset: number;
  if (c.kind === 'panel') {
    const m = c.rows - c.off;
    const local = new Int32Array(c.count * c.width), li = new Int32Array(c.count);
    cpuGetrfComplex({ a: block(wb, c.off, c.off, m, c.width), ipiv: local, pivotStride: c.width, info: li });
    for (let q = 0; q < c.count; q++) {
      for (let j = 0; j < c.width; j++) wantPiv[q * pivotStride + c.off + j] = c.off + local[q * c.width + j]!;
      if (wantInfo[q] === 0 && li[q]! > 0) wantInfo[q] = c.off + li[q]!;
      for (let j = c.off; j < c.off + c.width; j++) for (let i = c.off; i < c.rows; i++) writable[3 + q * stride + i + j * ld] = 1;
    }
    const p = planComplexPanel(c.dtype, c.rows, kind);
    src = complexPanelSource(p);
    grid = [c.count, 1, 1];
    threads = p.threads;
    ints = [m, c.width, c.off];
    opOffset = c.off + c.off * ld;
  } else {
    for (let e = 0; e < piv0.length; e++) piv0[e] = -1;
    for (let q = 0; q < c.count; q++) for (let kk = c.from; kk < c.to; kk++) piv0[q * pivotStride + kk] = rng.int(kk, c.rows - 1);
    wantPiv.set(piv0);
    for (let q = 0; q < c.count; q++) {
      const base = 3 + q * stride;
      for (let j = c.col; j < c.col + c.width; j++) {
        for (let s = 0; s < c.to - c.from; s++) {
          const kk = c.reverse ? c.to - 1 - s : c.from + s;
          const r = piv0[q * pivotStride + kk]!;
          const x = 2 * (base + kk + j * ld), y = 2 * (base + r + j * ld);
          [want[x], want[x + 1], want[y], want[y + 1]] = [want[y]!, want[y + 1]!, want[x]!, want[x + 1]!];
        }
        for (let i = 0; i < c.rows; i++) writable[base + i + j * ld] = 1;
      }
    }
    src = complexLaswpSource({ dtype: c.dtype, kind, reverse: c.reverse });
    grid = [c.count, Math.ceil(c.width / LASWP_THREADS), 1];
    threads = LASWP_THREADS;
    ints = [c.from, c.to, c.width];
    opOffset = c.col * ld;
  }
  if (c.dtype === 'float32') for (let e = 0; e < want.length; e++) want[e] = Math.fround(want[e]!);
  const operand = c.form === 'pointer'
    ? `${opOffset} 0 ${ld} ${Array.from({ length: c.count }, (_, q) => 3 + q * stride).join(' ')}`
    : `${3 + opOffset} ${stride} ${ld}`;
  const input = [
    `${grid[0]} ${grid[1]} ${threads} ${c.count} ${len} ${piv0.length} ${pivotStride}`,
    operand,
    ints.join(' '),
    ...Array.from({ length: len }, (_, e) => `${before[2 * e]} ${before[2 * e + 1]}`),
    ...Array.from(c.kind === 'panel' ? piv0 : wantPiv, String),
    ...Array.from(info0, String),
  ].join('\n') + '\n';
  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const defines = [`-DENTRY=${src.entry}`, ...(c.kind === 'panel' ? ['-DPANEL'] : []), ...(c.form === 'pointer' ? ['-DPA'] : [])];
  return { c, dir, exe: join(dir, 'h'), input, defines, entry: src.entry, before, want, wantPiv, wantInfo, len, writable };
}

function check(p: Prepared, out: string): void {
  const { c, len } = p;
  const lines = out.trim().split('\n');
  assert.equal(lines.length, len + p.wantPiv.length + c.count, `${p.entry}: the buffer, pivots and infos back`);
  const got = new Float64Array(2 * len);
  for (let e = 0; e < len; e++) {
    const [x, y] = lines[e]!.split(' ').map(parseHarnessNumber);
    got[2 * e] = x!; got[2 * e + 1] = y!;
  }
  const piv = Int32Array.from(lines.slice(len, len + p.wantPiv.length), Number);
  const info = Int32Array.from(lines.slice(len + p.wantPiv.length), Number);
  const what = `${p.entry} (${c.kind === 'panel' ? `${c.rows} rows, panel at ${c.off} of ${c.width}` : `${c.rows} rows, pivots ${c.from}..${c.to}${c.reverse ? ' backward' : ''}, columns ${c.col}+${c.width}`})`;
  assert.deepEqual([...piv], [...p.wantPiv], `${what}: pivots`);
  assert.deepEqual([...info], [...p.wantInfo], `${what}: info`);
  const eps = c.dtype === 'float64' ? 2 ** -53 : 2 ** -24;
  let scale = 1;
  for (let e = 0; e < len; e++) if (p.writable[e] === 1) for (const d of [0, 1]) { const w = p.want[2 * e + d]!; if (!Number.isNaN(w)) scale = Math.max(scale, Math.abs(w)); }
  // The swaps and copies move values: exactly; the panel's factors to rounding.
  const tol = c.kind === 'panel' ? 64 * c.rows * eps * scale : 0;
  for (let e = 0; e < len; e++) for (const d of [0, 1]) {
    const g = got[2 * e + d]!, w = p.want[2 * e + d]!;
    if (p.writable[e] === 0) {
      assert.ok(Object.is(g, p.before[2 * e + d]), `${what}: pair ${e} outside what the kernel may write changed`);
      continue;
    }
    assert.ok(Number.isNaN(w) ? Number.isNaN(g) : Math.abs(g - w) <= tol, `${what}: pair ${e} part ${d}: ${g}, want ${w}`);
  }
}

describe('the blocked complex LU kernels (panel, laswp) run on the host', { skip, timeout: 1_800_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zlu-blocked-')) : '';
  const prepared = skip === undefined ? cases().map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of cases().entries()) {
    const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
    const name = c.kind === 'panel'
      ? `panel ${ctype} ${c.rows} rows, columns ${c.off}..${c.off + c.width - 1}, ${c.count} ${c.form}`
      : `laswp ${ctype} ${c.rows} rows, pivots ${c.from}..${c.to - 1}${c.reverse ? ' backward' : ''}, ${c.width} columns, ${c.count} ${c.form}`;
    it(name, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
