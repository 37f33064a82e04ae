/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex herk kernels (zherk/) as their
 * launcher plans and launches them (on a device that records the kernel, its launch and the
 * pointer tables it uploads), compiled as C++ for the host (test/helpers/zherk-host-harness.cpp)
 * and run a thread per CUDA thread, against the complex reference (cpu/complex/zrankk.ts): lower
 * and upper, 'N' and 'C', both element types, n from 1 to 32, k from 0 to 40 (past a staged chunk),
 * strided and list batches with ragged leading dimensions and gaps; beta = 0 (C all NaN, not read),
 * alpha = 0 (A all NaN, not read), alpha = 0 with beta = 1 (no launch, C as it was). What zherk must
 * not read is NaN (test/helpers/zherk-data.ts), and every pair outside C's triangles must come back
 * as it was. A check of the CUDA source without a GPU; the GPU's own: test/gpu/zherk.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { Storage } from '../../src/core/storage.js';
import { cpuHerkComplex } from '../../src/cpu/complex/zrankk.js';
import { complexHerkCuda } from '../../src/cuda/kernels/zherk/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';
import { checkHerkMatrix, fillHermitian, fillMatrix } from '../helpers/zherk-data.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/zherk-host-harness.cpp');

type Form = 'strided' | 'list';
interface Case { dtype: DType; uplo: Uplo; trans: 'N' | 'C'; n: number; k: number; alpha: number; beta: number; count: number; formA: Form; formC: Form }

const SHAPES: readonly (readonly [number, number])[] = [[1, 3], [5, 1], [13, 40], [32, 7], [31, 33], [8, 5], [17, 2], [2, 64]];

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) {
    for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'C'] as const) for (const s of [0, 1]) {
      const [n, k] = SHAPES[(i * 3 + s) % SHAPES.length]!;
      out.push({ dtype, uplo, trans, n, k, alpha: 1.5, beta: -0.5, count: 3, formA: i % 3 === 2 ? 'list' : 'strided', formC: i % 4 === 1 ? 'list' : 'strided' });
      i++;
    }
    out.push({ dtype, uplo: 'upper', trans: 'C', n: 9, k: 4, alpha: -0.75, beta: 0, count: 3, formA: 'strided', formC: 'list' });
    out.push({ dtype, uplo: 'lower', trans: 'N', n: 6, k: 3, alpha: 0, beta: 2, count: 2, formA: 'list', formC: 'strided' });
    out.push({ dtype, uplo: 'lower', trans: 'C', n: 4, k: 0, alpha: 1, beta: -1, count: 2, formA: 'strided', formC: 'strided' });
    out.push({ dtype, uplo: 'upper', trans: 'N', n: 32, k: 32, alpha: 1, beta: 1, count: 2, formA: 'strided', formC: 'strided' });
  }
  return out;
}

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

interface Prepared { c: Case; dir: string; exe: string; input: string | null; defines: string[]; entry: string; before: Float64Array; want: Float64Array; la: Layout; lc: Layout; len: number }

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(8300 + index);
  const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const [ar, ac] = c.trans === 'N' ? [c.n, c.k] : [c.k, c.n];
  const at = { next: 3 };
  const la = place(rng, at, ar, ac, c.count, c.formA);
  const lc = place(rng, at, c.n, c.n, c.count, c.formC);
  const len = at.next + 2;
  const before = new Float64Array(2 * len).fill(NaN);
  for (const o of la.offsets) fillMatrix(rng, before, o, la.ld, ar, ac, c.alpha === 0);
  for (const o of lc.offsets) fillHermitian(rng, before, o, lc.ld, c.n, c.uplo, c.beta === 0);
  if (c.dtype === 'float32') for (let f = 0; f < before.length; f++) before[f] = Math.fround(before[f]!);
  const want = before.slice();
  const req = { uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta };
  cpuHerkComplex({ ...req, a: batchOf(want, la, c.formA, 'complex128'), c: batchOf(want, lc, c.formC, 'complex128') });

  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const bytes = c.dtype === 'float64' ? 16 : 8;
  const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: RECORDED_BASE, byteLength: len * bytes, disposed: false, dispose() {} };
  complexHerkCuda(dev, { ...req, a: batchOf(buffer, la, c.formA, ctype), c: batchOf(buffer, lc, c.formC, ctype) });
  const dir = join(root, `case${index}`);
  if (c.alpha === 0 && c.beta === 1) {
    assert.equal(recorded.length, 0, 'alpha 0, beta 1: no launch');
    return { c, dir, exe: '', input: null, defines: [], entry: 'none', before, want, la, lc, len };
  }
  assert.equal(recorded.length, 1, 'one launch');
  const r = recorded[0]!;
  const ops = [0, 1].map((o) => operandLine(r, o, bytes));
  const input = [
    `${r.config.grid[0]} ${r.config.block[0]} ${r.config.block[1]} ${r.config.block[2]} ${c.count} ${len}`,
    ...ops.map((o) => o.line),
    `${Number(r.args[10]!.value)} ${c.alpha} ${c.beta}`,
    ...Array.from({ length: len }, (_, e) => `${before[2 * e]} ${before[2 * e + 1]}`),
  ].join('\n') + '\n';
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), r.src.source);
  const defines = [`-DENTRY=${r.src.entry}`, ...ops.flatMap((o, i) => (o.pointer ? [`-DP${'AC'[i]}`] : []))];
  return { c, dir, exe: join(dir, 'h'), input, defines, entry: r.src.entry, before, want, la, lc, len };
}


describe('complex herk kernels run on the host', { skip, timeout: 1_800_000 }, () => {
  const all = cases();
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zherk-')) : '';
  const prepared = skip === undefined ? all.map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared.filter((p) => p.input !== null)));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of all.entries()) {
    it(`${c.uplo} '${c.trans}' ${c.dtype === 'float64' ? 'complex128' : 'complex64'} n ${c.n}, k ${c.k}, alpha ${c.alpha}, beta ${c.beta}, A ${c.formA}, C ${c.formC}`, () => {
      const p = prepared[i]!;
      if (p.input === null) return;   // no launch (checked in prepare): C stays as it was
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      const lines = r.stdout.toString().trim().split('\n');
      assert.equal(lines.length, p.len, `${p.entry}: the buffer back`);
      const got = new Float64Array(2 * p.len);
      lines.forEach((line, e) => { const [x, y] = line.split(' '); got[2 * e] = parseHarnessNumber(x!); got[2 * e + 1] = parseHarnessNumber(y!); });
      const inC = (e: number): boolean => p.lc.offsets.some((o) => e >= o && e < o + p.lc.ld * c.n && (e - o) % p.lc.ld < c.n);
      for (let e = 0; e < p.len; e++) {
        if (inC(e)) continue;
        for (const f of [2 * e, 2 * e + 1]) assert.ok(Object.is(got[f], p.before[f]) || (Number.isNaN(got[f]) && Number.isNaN(p.before[f])), `${p.entry}: pair ${e} outside C changed`);
      }
      p.lc.offsets.forEach((o, q) => checkHerkMatrix({ ...c }, got, p.want, o, p.lc.ld, p.before, p.la.offsets[q]!, p.la.ld, p.before, `${p.entry} matrix ${q}`));
    });
  }
});
