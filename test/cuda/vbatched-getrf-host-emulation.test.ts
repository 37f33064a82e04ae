/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the class kernels of the variable-size
 * batched LU (getrf/generate-vbatched.ts, the warp design; generate-register.ts's class frame)
 * compiled as C++ for the host (test/helpers/vbatched-host-harness.cpp with -DGETRF: a thread per
 * CUDA thread, real barriers, the warp intrinsics from a barrier per warp; the blocked design's
 * panel and update kernels by test/helpers/vbatched-getrf-panel-harness.cpp, step after step) and
 * launched as the launcher launches them (vbatchedGetrfLaunch, vbatchedGetrfPanelSteps), on
 * members of every class design: sizes 0 (m or n),
 * 1, class - 1 and the bound, tall and wide members, ragged ld, gaps between members, batch indices
 * out of launch order, a singular member (two zero columns: info the first) and a NaN member.
 * Checked against the CPU reference (test/helpers/vbatched-getrf.ts): info and pivots exactly, the
 * factors within rounding, pivot slots past a member's min(m, n) and every element outside the
 * members unchanged. A block whose threads took different barriers would never finish here.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { DType } from '../../src/core/dtype.js';
import { getrfClassParams, getrfUpdateVbatchedSource, vbatchedGetrfLaunch, vbatchedGetrfPanelSteps, vbatchedGetrfSource, type GetrfVbatchedParams } from '../../src/cuda/kernels/getrf/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { Rng } from '../helpers/random.js';
import { checkGetrfMember, fillGetrfMember, type GetrfMemberKind } from '../helpers/vbatched-getrf.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/vbatched-host-harness.cpp');
const PANEL_HARNESS = resolve('test/helpers/vbatched-getrf-panel-harness.cpp');
const SHARED_LIMIT = H100.sharedPerBlockOptin - 1024;
const SENTINEL = 12345.5;
const UNTOUCHED = -7;   // the harness's value of a pivot slot no kernel wrote

/** The source as the host compiles it: dynamic shared memory from the harness's buffer, the register design's volatile ld move a copy. */
const hostSource = (src: KernelSource): string => src.source
  .replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_smem;')
  .replace(/asm volatile\("mov\.b32 %0, %1;" : "=r"\((\w+)\) : "r"\((\w+)\)\);/, '$1 = $2;');

/** printf's %g of a double back to a number ('nan', 'inf' included). */
function parse(s: string): number {
  if (/nan/i.test(s)) return NaN;
  if (/inf/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  return Number(s);
}

interface Case {
  dtype: DType; bound: number; shapes: [number, number, GetrfMemberKind?][];
  /** The register design in this shape (warps x panel width x blocks an SM) instead of the table's for the class. */
  register?: { warps: number; nb: number; minBlocks: number };
}

const CASES: readonly Case[] = [
  // The warp design: m or n = 0 (info 0 only), 1 x 1, tall and wide, four members a warp (class 8).
  { dtype: 'float64', bound: 8, shapes: [[0, 0], [1, 1], [7, 7], [8, 8], [8, 3], [3, 8], [0, 5], [5, 0], [6, 6, 'singular'], [8, 8, 'nan'], [8, 7]] },
  { dtype: 'float32', bound: 16, shapes: [[16, 16], [15, 15], [1, 16], [16, 1], [9, 12], [12, 9], [14, 14, 'singular'], [13, 13, 'nan']] },
  // Class 24: a matrix a warp with lanes 24-31 idle.
  { dtype: 'float64', bound: 24, shapes: [[24, 24], [23, 23], [17, 24], [24, 17], [1, 1], [20, 20, 'singular'], [19, 22, 'nan']] },
  { dtype: 'float32', bound: 32, shapes: [[32, 32], [31, 31], [25, 32], [32, 25], [2, 2], [30, 30, 'singular'], [28, 28, 'nan']] },
  // The register design: the member's steps stop inside a panel, rows past m, columns past n.
  { dtype: 'float64', bound: 48, shapes: [[48, 48], [47, 47], [33, 48], [48, 33], [1, 1], [40, 40, 'singular'], [41, 41, 'nan']] },
  { dtype: 'float32', bound: 64, shapes: [[64, 64], [63, 63], [49, 64], [64, 50], [60, 60, 'singular'], [57, 57, 'nan']] },
  { dtype: 'float64', bound: 128, shapes: [[128, 128], [127, 127], [65, 128], [128, 70], [100, 100, 'singular'], [90, 90, 'nan']] },
  { dtype: 'float32', bound: 128, shapes: [[128, 128], [97, 100, 'singular'], [128, 65, 'nan']] },
  // The uniform table's register shapes of several blocks an SM and their few-matrix shapes (the
  // class frame over the same column steps), at bounds between the classes.
  { dtype: 'float64', bound: 72, register: { warps: 4, nb: 2, minBlocks: 4 }, shapes: [[72, 72], [71, 71], [65, 72], [72, 66], [1, 1], [60, 60, 'singular'], [70, 69, 'nan']] },
  { dtype: 'float64', bound: 80, register: { warps: 8, nb: 2, minBlocks: 2 }, shapes: [[80, 80], [79, 77], [33, 80], [80, 41, 'singular']] },
  { dtype: 'float64', bound: 96, register: { warps: 8, nb: 2, minBlocks: 2 }, shapes: [[96, 96], [95, 95], [81, 96], [96, 90, 'nan'], [88, 88, 'singular']] },
  { dtype: 'float32', bound: 96, register: { warps: 4, nb: 4, minBlocks: 4 }, shapes: [[96, 96], [93, 95], [96, 70], [90, 90, 'singular'], [75, 75, 'nan']] },
  { dtype: 'float32', bound: 112, register: { warps: 8, nb: 1, minBlocks: 3 }, shapes: [[112, 112], [111, 109], [97, 112], [112, 100, 'singular'], [105, 105, 'nan']] },
  { dtype: 'float32', bound: 104, register: { warps: 8, nb: 2, minBlocks: 2 }, shapes: [[104, 104], [103, 101], [104, 97, 'singular']] },
  // A candidate not in the table (float64 97-112 at two blocks an SM).
  { dtype: 'float64', bound: 112, register: { warps: 8, nb: 2, minBlocks: 2 }, shapes: [[112, 112], [110, 111], [112, 98, 'nan'], [100, 100, 'singular']] },
  // The blocked design: a panel and an update launch per panel, members done in earlier panels
  // leaving at once, the last panel partial, update tiles past a member's columns.
  { dtype: 'float64', bound: 256, shapes: [[256, 256], [255, 255], [129, 256], [256, 140], [1, 1], [200, 200, 'singular'], [150, 150, 'nan'], [3, 130]] },
  { dtype: 'float32', bound: 512, shapes: [[512, 512], [300, 511, 'singular'], [511, 257, 'nan']] },
];

for (const c of CASES) {
  const shape = c.register === undefined ? '' : `, register ${c.register.warps}x${c.register.nb}x${c.register.minBlocks}`;
  test(`vbatched getrf class ${c.bound} (${c.dtype}${shape}) run on the host`, { skip, timeout: 900_000 }, () => {
    const rng = new Rng(300 + c.bound + (c.dtype === 'float32' ? 1 : 0));
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbgetrf-'));
    try {
      const p: GetrfVbatchedParams | undefined = c.register === undefined ? getrfClassParams(c.dtype, c.bound, tuningFor('sm_90', 'getrf'), SHARED_LIMIT)
        : { variant: 'vregister', bound: c.bound, params: { dtype: c.dtype, rows: c.bound, cols: c.bound, kind: 'pointer', ...c.register } };
      assert.ok(p !== undefined, `a design for class ${c.bound}`);
      const count = c.shapes.length;
      let at = 3;
      const members = c.shapes.map(([m, n, kind], idx) => {
        const ld = Math.max(1, m + rng.int(0, 2));
        const off = at;
        at += ld * n + rng.int(1, 3);
        // Batch indices out of launch order: info and pivots land by index.
        return { m, n, ld, off, kind: kind ?? 'plain', index: count - 1 - idx };
      });
      const len = at + 2;
      const buf = new Float64Array(len).fill(SENTINEL);
      const inside = new Uint8Array(len);
      for (const q of members) {
        fillGetrfMember(rng, c.dtype, buf, q.off, q.ld, q.m, q.n, q.kind);
        for (let j = 0; j < q.n; j++) inside.fill(1, q.off + j * q.ld, q.off + j * q.ld + q.m);
      }
      const pivotStride = Math.max(...members.map((q) => Math.min(q.m, q.n)));
      const src = vbatchedGetrfSource(p);
      const memberLines = members.map((q) => `${q.off} ${q.m} ${q.n} ${q.ld} ${q.index}`);
      const exe = join(dir, 'h');
      let head: string[];
      if (p.variant === 'vpanel') {
        // The launcher's steps: the panel kernel, then the update, at every i0.
        const steps = vbatchedGetrfPanelSteps(p.params, members.map((q) => ({ rows: q.m, cols: q.n })));
        const update = getrfUpdateVbatchedSource(p.params);
        head = [`${count} ${len} ${pivotStride} ${steps.length}`, ...steps.map((st) => [
          st.i0, st.panel.grid[0], st.panel.block[0], st.panel.sharedBytes ?? 0, st.update?.grid[0] ?? 0, st.update?.grid[1] ?? 0, st.update?.block[0] ?? 0,
        ].join(' '))];
        writeFileSync(join(dir, 'panel.cu'), hostSource(src));
        writeFileSync(join(dir, 'update.cu'), hostSource(update));
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DPANEL=${src.entry}`, `-DUPDATE=${update.entry}`, `-I${dir}`, `-I${resolve('test/helpers')}`, PANEL_HARNESS, '-o', exe]);
      } else {
        const l = vbatchedGetrfLaunch(p, count);
        head = [`${count} ${l.grid[0]} ${l.grid[1]} ${l.block[0]} ${len}`, String(pivotStride)];
        writeFileSync(join(dir, 'kernel.cu'), hostSource(src));
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, '-DGETRF', `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
      }
      const input = [...head, ...memberLines, ...[...buf].map(String)].join('\n');
      const r = spawnSync(exe, { input: `${input}\n`, maxBuffer: 1 << 28, timeout: 600_000 });
      assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      const out = r.stdout.toString().trim().split('\n').map(parse);
      const got = out.slice(0, len), info = out.slice(len, len + count), pivots = out.slice(len + count);
      assert.equal(pivots.length, count * pivotStride);
      for (let e = 0; e < len; e++) if (inside[e] === 0) assert.ok(Object.is(got[e], buf[e]), `${src.entry}: element ${e} outside the members changed`);
      members.forEach((q, idx) => {
        const what = `${src.entry}: member ${idx} (${q.m} x ${q.n}, ${q.kind})`;
        const slot = pivots.slice(q.index * pivotStride, (q.index + 1) * pivotStride);
        const want = checkGetrfMember(what, c.dtype, buf, { a: got, info: info[q.index]!, pivots: slot }, q.off, q.ld, q.m, q.n, UNTOUCHED);
        if (q.kind === 'singular' && Math.min(q.m, q.n) >= 2) assert.ok(want > 0, `${what} was planted to be singular`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
