/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the blocked complex getrf as its launcher
 * runs it above order 32, end to end without a GPU. complexGetrfCuda records its launches on a
 * device that runs nothing (info zeroed, the panels, the swaps, the complex trsm's and the complex
 * gemm's kernels on sub-blocks, with the arguments and pointer tables it passes); each kernel is
 * then compiled for the host with its family's harness (zlu-panel-, ztrsm-, zgemm-host-harness.cpp)
 * and the launches run in order on one buffer, pivots and info carried from launch to launch.
 * Against the complex reference's zgetrf (cpu/complex/zgetrf.ts): pivots and info exactly, the
 * factors to rounding, every element outside the matrices bit for bit; complex128 and complex64,
 * strided and list batches, odd ld, square and rectangular, batches that mix random, singular (a
 * zero column past the first panel: info from a later panel) and NaN matrices.
 *
 * NaN: the reference (zgetf2) keeps a NaN in one part of an element from reaching the other part
 * until the element is multiplied; the complex gemm's update C := -L21 U12 + 1 C computes 1 C as a
 * complex product (as the reference's zgemm does), so an element that holds a NaN in one part when
 * a trailing update runs over it has NaN in both parts after it. The check allows exactly that: a
 * part the reference has finite may be NaN only where the reference has the other part NaN.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { Storage } from '../../src/core/storage.js';
import { cpuGetrfComplex } from '../../src/cpu/complex/zgetrf.js';
import { complexGetrfCuda } from '../../src/cuda/kernels/complex-lu/index.js';
import type { DeviceArray, KernelArg } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine, parseHarnessNumber, NO_MMA_CARD, RECORDED_BASE, recordingDevice, type HarnessBuild, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = {
  panel: resolve('test/helpers/zlu-panel-host-harness.cpp'),
  trsm: resolve('test/helpers/ztrsm-host-harness.cpp'),
  gemm: resolve('test/helpers/zgemm-host-harness.cpp'),
};
const SENTINEL = 12345.5;
const PIV = 0x2000000n, INFO = 0x3000000n;

type Form = 'strided' | 'list';
interface Case { dtype: DType; form: Form; rows: number; cols: number; count: number }
const CASES: readonly Case[] = [
  { dtype: 'float64', form: 'strided', rows: 70, cols: 70, count: 3 },
  { dtype: 'float32', form: 'list', rows: 47, cols: 47, count: 3 },
  { dtype: 'float64', form: 'list', rows: 40, cols: 75, count: 2 },
  { dtype: 'float32', form: 'strided', rows: 75, cols: 40, count: 3 },
];

type Kind = 'info' | 'panel' | 'laswp' | 'trsm' | 'gemm';
const kindOfEntry = (entry: string): Kind => {
  if (entry === 'info_zero') return 'info';
  if (/^getrf_[zc]_panel_/.test(entry)) return 'panel';
  if (/^getrf_laswp_[zc]_/.test(entry)) return 'laswp';
  if (/^ztrsm_/.test(entry)) return 'trsm';
  if (/gemm/.test(entry)) return 'gemm';
  throw new Error(`no harness for ${entry}`);
};

/** One recorded launch, ready to run: its harness build and the stdin it takes (the buffer, pivots and info added when it runs). */
interface Step { kind: Kind; build: HarnessBuild & { harness: string }; head: string[]; entry: string }

interface Prepared { c: Case; steps: Step[]; len: number; before: Float64Array; want: Float64Array; inside: Uint8Array; refPiv: Int32Array; refInfo: Int32Array; k: number }

const num = (a: KernelArg | undefined): number => Number(a!.value);

function prepare(c: Case, index: number, root: string, builds: Map<string, HarnessBuild & { harness: string }>): Prepared {
  const rng = new Rng(9100 + index);
  const round = (x: number): number => (c.dtype === 'float32' ? Math.fround(x) : x);
  const ctype = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const { rows, cols, count } = c;
  const k = Math.min(rows, cols);
  const ld = rows + (rows % 2 === 0 ? 3 : 2);
  const offsets = Array.from({ length: count }, (_, q) => 3 + q * (ld * cols + 4));
  const len = 3 + count * (ld * cols + 4) + 2;
  const before = new Float64Array(2 * len).fill(SENTINEL);
  const inside = new Uint8Array(len);
  offsets.forEach((o, q) => {
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
      const e = o + i + j * ld;
      // Matrix 1: a zero column past the first panel; matrix 2: a NaN in one part past the first panel.
      const zero = q === 1 && j === 32 + (k - 33) % 5;
      before[2 * e] = zero ? 0 : round(rng.uniform(-1, 1));
      before[2 * e + 1] = zero ? 0 : round(rng.uniform(-1, 1));
      inside[e] = 1;
    }
  });
  if (count > 2) before[2 * (offsets[2]! + 9 + 34 * ld) + 1] = NaN;
  const batchOf = <S>(data: S, type: 'complex128' | 'complex64'): Batch<S> => (c.form === 'list'
    ? list(offsets.map((offset) => ({ data: data as unknown as Storage, offset })), { rows, cols, ld, dtype: type }) as unknown as Batch<S>
    : strided(data as unknown as Storage, { rows, cols, ld, stride: ld * cols + 4, offset: offsets[0]!, count, dtype: type }) as unknown as Batch<S>);
  const want = before.slice();
  const refPiv = new Int32Array(count * k), refInfo = new Int32Array(count);
  cpuGetrfComplex({ a: batchOf(want, 'complex128'), ipiv: refPiv, pivotStride: k, info: refInfo });
  if (c.dtype === 'float32') for (let f = 0; f < want.length; f++) want[f] = Math.fround(want[f]!);

  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded, NO_MMA_CARD);
  const bytes = c.dtype === 'float64' ? 16 : 8;
  const buffer: DeviceArray = { kind: 'device', dtype: c.dtype, length: 2 * len, device: 0, ptr: RECORDED_BASE, byteLength: len * bytes, disposed: false, dispose() {} };
  const ints = (ptr: bigint, length: number): DeviceArray => ({ kind: 'device', dtype: 'int32', length, device: 0, ptr, byteLength: 4 * length, disposed: false, dispose() {} });
  complexGetrfCuda(dev, { a: batchOf(buffer, ctype), ipiv: ints(PIV, count * k), pivotStride: k, info: ints(INFO, count) });

  const steps = recorded.map((r): Step => {
    const kind = kindOfEntry(r.src.entry);
    const [gx, gy, gz] = r.config.grid;
    const bx = r.config.block[0];
    let head: string[] = [];
    let defines: string[] = [];
    let harness = HARNESS.panel;
    let source = r.src.source;
    if (kind === 'info') {
      assert.equal(BigInt(r.args[0]!.value), INFO, 'info_zero writes the request\'s info');
    } else if (kind === 'panel' || kind === 'laswp') {
      const a = operandLine(r, 0, bytes);
      assert.equal(BigInt(r.args[4]!.value), PIV, 'the request\'s pivots');
      head = [`${gx} ${gy} ${bx} ${count} ${len} ${count * k} ${num(r.args[5])}`, a.line, r.args.slice(-3).map(num).join(' ')];
      defines = [...(kind === 'panel' ? ['-DPANEL'] : []), ...(a.pointer ? ['-DPA'] : [])];
    } else if (kind === 'trsm') {
      harness = HARNESS.trsm;
      const ops = [0, 1].map((o) => operandLine(r, o, bytes));
      head = [`${gx} ${gy} ${bx} ${num(r.args[9])} ${len}`, ...ops.map((o) => o.line), `${num(r.args[10])} ${num(r.args[11])} ${num(r.args[12])}`];
      defines = ops.flatMap((o, i) => (o.pointer ? [`-DP${'AB'[i]}`] : []));
    } else {
      harness = HARNESS.gemm;
      const tiled = /gemm_tiled_/.test(r.src.entry);
      assert.ok(tiled || /^gemm_small_/.test(r.src.entry), `${r.src.entry}: the very-small or the tiled design (what the harness runs)`);
      const ops = [0, 1, 2].map((o) => operandLine(r, o, bytes));
      const [m, n, kk] = tiled ? r.args.slice(17, 20).map(num) : [0, 0, 0];
      head = [`${gx} ${gy} ${gz} ${bx} ${num(r.args[12])} ${m} ${n} ${kk} ${len}`, r.args.slice(13, 17).map(num).join(' '), ...ops.map((o) => o.line)];
      defines = [...(tiled ? ['-DTILED'] : []), ...ops.flatMap((o, i) => (o.pointer ? [`-DP${'ABC'[i]}`] : []))];
      source = source.replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_smem;');
    }
    const key = `${harness} ${defines.join(' ')} ${r.src.entry} ${source.length}`;
    let build = builds.get(key);
    if (build === undefined && kind !== 'info') {
      const dir = join(root, `k${builds.size}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'kernel.cu'), source);
      build = { harness, dir, exe: join(dir, 'h'), defines: [`-DENTRY=${r.src.entry}`, ...defines] };
      builds.set(key, build);
    }
    return { kind, build: build ?? { harness, dir: '', exe: '', defines: [] }, head, entry: r.src.entry };
  });
  return { c, steps, len, before, want, inside, refPiv, refInfo, k };
}

/** Runs the recorded launches in order on the buffer; returns the buffer, pivots and info. */
function runChain(p: Prepared): { buf: Float64Array; piv: Int32Array; info: Int32Array } {
  const buf = p.before.slice();
  const piv = new Int32Array(p.c.count * p.k).fill(-5);
  const info = new Int32Array(p.c.count).fill(-7);
  const pairs = (): string[] => Array.from({ length: p.len }, (_, e) => `${buf[2 * e]} ${buf[2 * e + 1]}`);
  for (const s of p.steps) {
    if (s.kind === 'info') { info.fill(0); continue; }
    const withPivots = s.kind === 'panel' || s.kind === 'laswp';
    const input = [...s.head, ...pairs(), ...(withPivots ? [...Array.from(piv, String), ...Array.from(info, String)] : [])].join('\n') + '\n';
    const r = spawnSync(s.build.exe, { input, maxBuffer: 1 << 28, timeout: 300_000 });
    assert.equal(r.status, 0, `${s.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
    const lines = r.stdout.toString().trim().split('\n');
    assert.equal(lines.length, p.len + (withPivots ? piv.length + info.length : 0), `${s.entry}: what comes back`);
    for (let e = 0; e < p.len; e++) {
      const [x, y] = lines[e]!.split(' ').map(parseHarnessNumber);
      buf[2 * e] = x!; buf[2 * e + 1] = y!;
    }
    if (withPivots) {
      piv.set(lines.slice(p.len, p.len + piv.length).map(Number));
      info.set(lines.slice(p.len + piv.length).map(Number));
    }
  }
  return { buf, piv, info };
}

describe('the blocked complex getrf, launch by launch, runs on the host', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zlu-chain-')) : '';
  const builds = new Map<string, HarnessBuild & { harness: string }>();
  const prepared = skip === undefined ? CASES.map((c, i) => prepare(c, i, root, builds)) : [];
  before(async () => {
    for (const harness of Object.values(HARNESS)) await compileHarnesses(harness, [...builds.values()].filter((b) => b.harness === harness));
  });
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of CASES.entries()) {
    it(`${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.rows} x ${c.cols}, ${c.count} ${c.form}`, () => {
      const p = prepared[i]!;
      const kinds = new Set(p.steps.map((s) => s.kind));
      for (const kind of ['info', 'panel', 'laswp', 'trsm', 'gemm'] as const) assert.ok(kinds.has(kind), `a ${kind} launch`);
      const { buf, piv, info } = runChain(p);
      const what = `${c.dtype} ${c.rows}x${c.cols} ${c.form}`;
      assert.deepEqual([...info], [...p.refInfo], `${what}: info`);
      assert.ok(p.refInfo[1]! > 32, `${what}: the zero column's info comes from a later panel`);
      assert.deepEqual([...piv], [...p.refPiv], `${what}: pivots`);
      const eps = c.dtype === 'float64' ? 2 ** -53 : 2 ** -24;
      let scale = 1;
      for (let f = 0; f < p.want.length; f++) if (p.inside[f >> 1] === 1 && !Number.isNaN(p.want[f]!)) scale = Math.max(scale, Math.abs(p.want[f]!));
      const tol = 64 * Math.max(c.rows, c.cols) * eps * scale;
      for (let e = 0; e < p.len; e++) for (const d of [0, 1]) {
        const g = buf[2 * e + d]!, w = p.want[2 * e + d]!;
        if (p.inside[e] === 0) { assert.ok(Object.is(g, p.before[2 * e + d]), `${what}: pair ${e} outside the matrices changed`); continue; }
        if (Number.isNaN(w)) { assert.ok(Number.isNaN(g), `${what}: pair ${e} part ${d}: ${g}, want NaN`); continue; }
        if (Number.isNaN(g) && Number.isNaN(p.want[2 * e + 1 - d]!)) continue;   // the other part NaN: see the header
        assert.ok(Math.abs(g - w) <= tol, `${what}: pair ${e} part ${d}: ${g}, want ${w}`);
      }
    });
  }
});
