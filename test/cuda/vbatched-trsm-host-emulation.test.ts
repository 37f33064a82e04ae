/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the class kernel of variable-size batched
 * trsm (trsm/generate-vbatched.ts) compiled as C++ for the host (test/helpers/vbatched-trsm-host-harness.cpp)
 * and run as the launcher runs it: the plan's steps in order, each leaf one launch of the kernel
 * (shape from vbatchedTrsmLaunch), each update the members' GEMMs (memberUpdate) on the CPU, as
 * the variable-size GEMM would run them. Every side, uplo, trans and diag; members of sizes 1,
 * class - 1 and the class bound beside others (0 triangles and 0 vectors too, which the plan
 * leaves out), B's other dimension from 1 to beyond one block's vectors (the column tiling), the
 * classes above the leaf cut at members' orders (blocks of a member partly or wholly beyond its
 * triangle), ragged ld, gaps between members. The other triangle of A (and a unit diagonal) is
 * NaN, so a read of it shows. Checked against the CPU reference (cpuTrsm) on the whole buffer:
 * B within the solve's tolerance, every other element unchanged bit for bit. Then posv's copies
 * (solve/generate-copy-vbatched.ts): B into the packed copy for every member, and back only where
 * info is non-zero, with fewer blocks than members (the walk over members).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { variable, type MatrixView, type VariableBatch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { memberUpdate, planVbatchedTrsm, trsmVbatchedLeafSource, vbatchedTrsmLaunch } from '../../src/cuda/kernels/trsm/index.js';
import { copyVbatchedSource, vbatchedCopyLaunch } from '../../src/cuda/kernels/solve/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { Rng } from '../helpers/random.js';
import { compareOutput, fillTriangle, TRSM_VARIANTS, trsmTolerance, caseName, type TrsmCase } from '../helpers/trsm-data.js';
import { parseHarnessNumber } from '../helpers/recording-device.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/vbatched-trsm-host-harness.cpp');
const SENTINEL = 12345.5;

/** The source as the host compiles it: dynamic shared memory from the harness's buffer. */
function hostSource(src: KernelSource): string {
  return src.source.replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_shared;');
}

interface Case { variant: TrsmCase; dtype: DType; bound: number; leafMax?: number; shapes: [number, number][] }

/** [t, nvec] per member: 1, class - 1, the bound, vectors 1 to beyond one block's 64, and members the plan leaves out. */
function shapesFor(bound: number, low: number, rng: Rng): [number, number][] {
  const t = [bound, bound - 1, low, bound, Math.max(low, bound - 3), low + Math.floor((bound - low) / 2)];
  const nvec = [70, 1, 3, 64, 17, 33];
  return [...t.map((x, i): [number, number] => [x, nvec[(i + rng.int(0, 5)) % nvec.length]!]), [0, 5], [low, 0]];
}

const CLASSES: readonly { bound: number; low: number }[] = [
  { bound: 8, low: 1 }, { bound: 16, low: 9 }, { bound: 32, low: 25 }, { bound: 48, low: 33 }, { bound: 64, low: 49 }, { bound: 128, low: 65 },
];

const CASES: Case[] = TRSM_VARIANTS.map((variant, i) => {
  const c = CLASSES[i % CLASSES.length]!;
  const rng = new Rng(300 + i);
  // Two cases with leaves of 8: the recursion's cuts inside the small classes.
  return { variant, dtype: i % 2 === 0 ? 'float64' : 'float32', bound: c.bound, ...(i === 1 || i === 14 ? { leafMax: 8 } : {}), shapes: shapesFor(c.bound, c.low, rng) };
});

/** Compiles the kernel once; `run` launches it on the buffer. */
function harness(dir: string, src: KernelSource, copy = false): (input: string) => number[] {
  writeFileSync(join(dir, 'kernel.cu'), hostSource(src));
  const exe = join(dir, 'h');
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(copy ? ['-DCOPY'] : []), `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
  return (input) => {
    const r = spawnSync(exe, { input, maxBuffer: 1 << 28, timeout: 300_000 });
    assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
    return r.stdout.toString().trim().split('\n').map(parseHarnessNumber);
  };
}

for (const c of CASES) {
  const v = c.variant;
  test(`vbatched trsm class ${c.bound} (${c.dtype} ${caseName(v)}${c.leafMax ? `, leaves of ${c.leafMax}` : ''}) run on the host`, { skip, timeout: 900_000 }, () => {
    const rng = new Rng(c.bound * 31 + TRSM_VARIANTS.indexOf(v));
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbtrsm-'));
    try {
      const left = v.side === 'left';
      const alpha = -1.5;
      // Members one after another in one buffer: A then B, ld = rows + 0..2 (at least 1), gaps of 1..3.
      let next = 3;
      const place = (rows: number, cols: number): { off: number; ld: number } => {
        const ld = Math.max(1, rows + rng.int(0, 2));
        const off = next;
        next += ld * cols + rng.int(1, 3);
        return { off, ld };
      };
      const members = c.shapes.map(([t, nvec]) => {
        const [m, n] = left ? [t, nvec] : [nvec, t];
        return { t, nvec, m, n, a: place(t, t), b: place(m, n) };
      });
      const len = next + 2;
      const buf = allocate(c.dtype, len).fill(SENTINEL);
      const inB = new Uint8Array(len);
      for (const q of members) {
        fillTriangle(rng, buf, q.a.off, q.a.ld, q.t, v.uplo, v.diag);
        for (let j = 0; j < q.n; j++) for (let i = 0; i < q.m; i++) { buf[q.b.off + i + j * q.b.ld] = rng.uniform(); inB[q.b.off + i + j * q.b.ld] = 1; }
      }
      const views = (data: FloatArray, which: 'a' | 'b'): MatrixView<FloatArray>[] => members.map((q) => which === 'a'
        ? { data, offset: q.a.off, ld: q.a.ld, rows: q.t, cols: q.t }
        : { data, offset: q.b.off, ld: q.b.ld, rows: q.m, cols: q.n });
      const want = buf.slice();
      cpuTrsm({ ...v, alpha, a: variable(views(want, 'a')), b: variable(views(want, 'b')) });

      const plan = planVbatchedTrsm({ ...v, dtype: c.dtype, members: { t: Int32Array.from(members, (q) => q.t), nvec: Int32Array.from(members, (q) => q.nvec) }, sharedLimit: H100.sharedPerBlockOptin - 1024 },
        tuningFor('sm_90', 'trsm'), c.leafMax === undefined ? {} : { leafMax: c.leafMax });
      assert.deepEqual(plan.launches.map((l) => l.bound), [c.bound], 'one class');
      const launch = plan.launches[0]!;
      assert.equal(launch.members.length, members.length - 2, 'members with no triangle or no vectors are left out');
      const src = trsmVbatchedLeafSource(plan.leaf);
      const run = harness(dir, src);
      let got: FloatArray = buf.slice();
      const order = Array.from(launch.members).map((i) => members[i]!);
      for (const step of launch.steps) {
        if (step.kind === 'update') {
          const a = views(got, 'a'), b = views(got, 'b');
          const us = Array.from(launch.members).map((i) => memberUpdate({ ...v, alpha }, a[i]!, b[i]!, step)).filter((u) => u.c.rows > 0 && u.c.cols > 0);
          const vb = (x: MatrixView<FloatArray>[]): VariableBatch<FloatArray> => ({ kind: 'variable', order: 'col', matrices: x });
          if (us.length > 0) cpuGemm({ transA: us[0]!.transA, transB: us[0]!.transB, alpha: us[0]!.alpha, beta: us[0]!.beta, a: vb(us.map((u) => u.a)), b: vb(us.map((u) => u.b)), c: vb(us.map((u) => u.c)) });
          continue;
        }
        const shape = launch.shapes.get(step.span.size)!;
        const l = vbatchedTrsmLaunch(shape, order.length, launch.nvecMax);
        const input = [
          `${order.length} ${l.grid[0]} ${l.grid[1]} ${l.block[0]} ${l.block[1]} ${l.sharedBytes ?? 0} ${len}`,
          `${step.scaled ? alpha : 1} ${step.span.off} ${step.span.size} ${launch.nvecMax} ${shape.ldx}`,
          ...order.map((q) => `${q.a.off} ${q.b.off} ${q.t} ${q.nvec} ${q.a.ld} ${q.b.ld}`),
          ...[...got].map(String),
        ].join('\n');
        const out = run(`${input}\n`);
        const next = allocate(c.dtype, len);
        for (let e = 0; e < len; e++) next[e] = out[e]!;
        got = next;
      }
      compareOutput(got, want, (e) => inB[e] === 1, trsmTolerance(c.dtype, c.bound), `${src.entry} class ${c.bound}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

for (const dtype of ['float64', 'float32'] as DType[]) {
  test(`posv's copies of B (${dtype}): every member aside, the failed members back, nothing else touched`, { skip, timeout: 900_000 }, () => {
    const rng = new Rng(dtype === 'float64' ? 41 : 42);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbcopy-'));
    try {
      const shapes: [number, number][] = [[1, 1], [7, 3], [40, 1], [3, 70], [16, 16], [2, 5]];
      // Batch indices as the launcher writes them (members with an empty B are not in the tables).
      const index = [0, 2, 3, 5, 6, 8];
      const info = [0, 0, 3, 1, 0, 0, 2, 0, 5];   // members at 3, 5 and 8 failed (2 and 6 are not in the launch)
      let next = 2;
      const members = shapes.map(([rows, cols], q) => {
        const ld = rows + rng.int(0, 2);
        const b = next; next += ld * cols + rng.int(1, 3);
        return { rows, cols, ld, b, index: index[q]! };
      });
      let copyAt = next + 1;
      const placed = members.map((q) => { const c = copyAt; copyAt += q.rows * q.cols; return { ...q, copy: c }; });
      const len = copyAt + 2;
      const buf = allocate(dtype, len).fill(SENTINEL);
      for (const q of placed) for (let j = 0; j < q.cols; j++) for (let i = 0; i < q.rows; i++) buf[q.b + i + j * q.ld] = rng.uniform();
      const run = harness(dir, copyVbatchedSource(dtype), true);
      const l = vbatchedCopyLaunch(placed.length, 4);
      assert.equal(l.grid[0], 4);
      const input = (back: number, data: FloatArray): string => [
        `${placed.length} ${l.grid[0]} ${l.grid[1]} ${l.block[0]} ${l.block[1]} 0 ${len}`,
        `${back} ${info.length}`, info.join(' '),
        ...placed.map((q) => `${q.b} ${q.copy} ${q.rows} ${q.cols} ${q.ld} ${q.index}`),
        ...[...data].map(String),
      ].join('\n') + '\n';
      const aside = run(input(0, buf));
      const want = buf.slice();
      for (const q of placed) for (let j = 0; j < q.cols; j++) for (let i = 0; i < q.rows; i++) want[q.copy + i + j * q.rows] = buf[q.b + i + j * q.ld]!;
      for (let e = 0; e < len; e++) assert.ok(Object.is(aside[e], want[e]), `aside: element ${e} is ${aside[e]}, want ${want[e]}`);
      // The solves' result stands in B (-1 everywhere in it); back: the failed members' input returns.
      const solved = allocate(dtype, len);
      for (let e = 0; e < len; e++) solved[e] = aside[e]!;
      for (const q of placed) for (let j = 0; j < q.cols; j++) for (let i = 0; i < q.rows; i++) solved[q.b + i + j * q.ld] = -1;
      const got = run(input(1, solved));
      const final = solved.slice();
      for (const q of placed) if (info[q.index] !== 0) for (let j = 0; j < q.cols; j++) for (let i = 0; i < q.rows; i++) final[q.b + i + j * q.ld] = buf[q.b + i + j * q.ld]!;
      for (let e = 0; e < len; e++) assert.ok(Object.is(got[e], final[e]), `back: element ${e} is ${got[e]}, want ${final[e]}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
