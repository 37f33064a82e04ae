/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the class kernels of variable-size
 * batches (gemm/generate-vstaged.ts and generate-vbatched.ts; potrf's warp, register and panel class kernels) compiled as
 * C++ for the host (test/helpers/vbatched-host-harness.cpp) and launched as the launchers launch
 * them (vbatchedGemmLaunch, vbatchedPotrfLaunch), on members of sizes 0 or 1, class - 1 and the
 * class bound beside others, ragged ld, gaps between members, and (potrf) a failing and a NaN
 * member. Checked against the CPU reference: C or the factor within rounding, info exactly,
 * every element outside the members' outputs unchanged. A block whose threads took different
 * barriers would never finish here (a std::barrier per block and per warp), so the run also
 * checks that every loop and barrier of these kernels ends for these sizes. A check of the CUDA
 * source without a GPU.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import type { Uplo } from '../../src/core/enums.js';
import { potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import { planVbatchedGemm, vbatchedGemmLaunch, vbatchedGemmSource, type VbatchedGemmParams } from '../../src/cuda/kernels/gemm/index.js';
import { potrfClassParams, vbatchedPotrfLaunch, vbatchedPotrfSource } from '../../src/cuda/kernels/potrf/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/vbatched-host-harness.cpp');
const SENTINEL = 12345.5;

/** The source as the host compiles it: dynamic shared memory from the harness's buffer, the volatile ld move a copy. */
function hostSource(src: KernelSource): string {
  return src.source
    .replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_smem;')
    .replace(/asm volatile\("mov\.b32 %0, %1;" : "=r"\((\w+)\) : "r"\((\w+)\)\);/, '$1 = $2;');
}

/** Compiles `src` with the harness and runs it on `input`; the output's numbers. */
function runHost(dir: string, src: KernelSource, gemm: boolean, input: string, live = false): number[] {
  writeFileSync(join(dir, 'kernel.cu'), hostSource(src));
  const exe = join(dir, 'h');
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(gemm ? ['-DGEMM'] : []), ...(live ? ['-DLIVE'] : []), `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
  const r = spawnSync(exe, { input, maxBuffer: 1 << 28, timeout: 300_000 });
  assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
  return r.stdout.toString().trim().split('\n').map(Number);
}

const launchLine = (count: number, l: LaunchConfig, len: number): string => {
  assert.equal(l.grid[2], 1);
  assert.equal(l.block[1] * l.block[2], 1);
  return `${count} ${l.grid[0]} ${l.grid[1]} ${l.block[0]} ${len}`;
};

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

/** Places members one after another in one buffer: ld = rows + 0..2 (at least 1), gaps of 1..3. */
function place(rng: Rng, at: { next: number }, rows: number, cols: number): { off: number; ld: number } {
  const ld = Math.max(1, rows + rng.int(0, 2));
  const off = at.next;
  at.next += ld * cols + rng.int(1, 3);
  return { off, ld };
}

interface GemmCase { dtype: DType; transA: Op; transB: Op; beta: number; bound: number; shapes: [number, number, number][] }

const GEMM_CASES: readonly GemmCase[] = [
  // The staged design: k = 0 (C := beta C), 1, class - 1, the bound; rectangular members.
  { dtype: 'float64', transA: 'N', transB: 'T', beta: 0.5, bound: 8, shapes: [[1, 1, 1], [7, 8, 8], [8, 8, 8], [8, 3, 0], [2, 8, 5]] },
  { dtype: 'float32', transA: 'T', transB: 'N', beta: 0, bound: 16, shapes: [[16, 16, 16], [15, 15, 15], [1, 16, 9], [9, 1, 16], [12, 13, 0]] },
  // vtiled: one tile or several, partial tiles, k not a multiple of BK, k = 0.
  { dtype: 'float64', transA: 'T', transB: 'T', beta: 0.5, bound: 48, shapes: [[48, 48, 48], [47, 47, 47], [1, 1, 33], [33, 48, 1], [40, 2, 0]] },
  { dtype: 'float32', transA: 'N', transB: 'N', beta: 0, bound: 64, shapes: [[64, 64, 64], [63, 63, 63], [1, 64, 49], [64, 1, 17]] },
  // float32 class 48 on the card's 48 x 48 tile (12 x 12 threads of 4 x 4), every member past one k-step of 16.
  { dtype: 'float32', transA: 'T', transB: 'T', beta: 0.5, bound: 48, shapes: [[48, 48, 48], [47, 33, 47], [33, 48, 17], [40, 1, 48], [1, 40, 0]] },
];

interface GemmRun { dtype: DType; transA: Op; transB: Op; alpha: number; beta: number; p: VbatchedGemmParams; shapes: readonly (readonly [number, number, number])[] }

/**
 * Runs class kernel `p` on members of `shapes` (in launch order) laid out in one buffer with ragged
 * ld and gaps, then `zeroRows` all-zero table rows (the device form's rows past a class's members);
 * checks each member's C against the reference and every other element unchanged. `loop`: the
 * device-count form (p.deviceCount) over `slots` member slots (fewer than the members: the blocks
 * loop), the count passed by address, and the rows past it rows of work on element 0 (outside every
 * member's C), which the kernel must not read.
 */
function checkGemmRun(dir: string, rng: Rng, r: GemmRun, zeroRows = 0, loop?: { slots: number }): void {
  const { dtype, transA, transB, alpha, beta, p } = r;
  const at = { next: 2 };
  const members = r.shapes.map(([m, n, k]) => ({
    m, n, k,
    a: place(rng, at, transA === 'N' ? m : k, transA === 'N' ? k : m),
    b: place(rng, at, transB === 'N' ? k : n, transB === 'N' ? n : k),
    c: place(rng, at, m, n),
  }));
  const len = at.next + 2;
  const buf = new Float64Array(len).fill(SENTINEL);
  const inC = new Uint8Array(len);
  for (const q of members) {
    const fillMatrix = (pl: { off: number; ld: number }, rows: number, cols: number, value: () => number, mark: boolean): void => {
      for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) { buf[pl.off + i + j * pl.ld] = value(); if (mark) inC[pl.off + i + j * pl.ld] = 1; }
    };
    fillMatrix(q.a, transA === 'N' ? q.m : q.k, transA === 'N' ? q.k : q.m, () => round(dtype, rng.uniform()), false);
    fillMatrix(q.b, transB === 'N' ? q.k : q.n, transB === 'N' ? q.n : q.k, () => round(dtype, rng.uniform()), false);
    fillMatrix(q.c, q.m, q.n, () => (beta === 0 ? NaN : round(dtype, rng.uniform())), true);
  }
  const src = vbatchedGemmSource(p);
  const count = members.length + zeroRows;
  const input = [
    launchLine(count, vbatchedGemmLaunch(p, loop === undefined ? count : loop.slots), len), `${alpha} ${beta}`,
    ...(loop === undefined ? [] : [String(members.length)]),
    ...members.map((q) => `${q.a.off} ${q.b.off} ${q.c.off} ${q.m} ${q.n} ${q.k} ${q.a.ld} ${q.b.ld} ${q.c.ld}`),
    ...Array.from({ length: zeroRows }, () => (loop === undefined ? '0 0 0 0 0 0 0 0 0' : '0 0 0 1 1 1 1 1 1')),
    ...[...buf].map(String),
  ].join('\n');
  const got = runHost(dir, src, true, `${input}\n`, loop !== undefined);
  const eps = DTYPE_EPS[dtype];
  for (let e = 0; e < len; e++) if (inC[e] === 0) assert.ok(Object.is(got[e], buf[e]), `${src.entry}: element ${e} outside the members' C changed`);
  for (const q of members) {
    const A = (i: number, l: number): number => buf[q.a.off + (transA === 'N' ? i + l * q.a.ld : l + i * q.a.ld)]!;
    const B = (l: number, j: number): number => buf[q.b.off + (transB === 'N' ? l + j * q.b.ld : j + l * q.b.ld)]!;
    for (let j = 0; j < q.n; j++) for (let i = 0; i < q.m; i++) {
      let s = 0, abs = 0;
      for (let l = 0; l < q.k; l++) { s += A(i, l) * B(l, j); abs += Math.abs(A(i, l) * B(l, j)); }
      const c0 = buf[q.c.off + i + j * q.c.ld]!;
      const want = alpha * s + (beta === 0 ? 0 : beta * c0);
      const g = got[q.c.off + i + j * q.c.ld]!;
      const bound = 4 * (q.k + 2) * eps * (Math.abs(alpha) * abs + (beta === 0 ? 0 : Math.abs(beta * c0))) + 1e-300;
      assert.ok(Math.abs(g - want) <= bound, `${src.entry}: member ${q.m} x ${q.n} x ${q.k} C(${i}, ${j}) = ${g}, want ${want}`);
    }
  }
}

for (const c of GEMM_CASES) {
  test(`vbatched gemm class ${c.bound} (${c.dtype} ${c.transA}${c.transB} beta ${c.beta}) run on the host`, { skip, timeout: 900_000 }, () => {
    const rng = new Rng(c.bound);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbatch-'));
    try {
      const alpha = -1.25;
      // The tiled class kernels (the tensor-core ones have no host model), float32's with the card's class tiles.
      const sm90 = tuningFor('sm_90', 'gemm');
      const tuning = { ...sm90, vbatchedMma: false, vbatchedLarge: { float32: sm90.vbatchedLarge?.float32 } };
      const plan = planVbatchedGemm({ dtype: c.dtype, transA: c.transA, transB: c.transB, alpha, beta: c.beta, shapes: c.shapes.map(([m, n, k]) => ({ m, n, k })) }, tuning);
      const launch = plan.launches.find((l) => l.bound === c.bound);
      assert.ok(launch !== undefined, `a launch of class ${c.bound}`);
      const shape = c.dtype === 'float32' ? tuning.vbatchedLarge.float32?.[c.bound] : undefined;
      if (shape !== undefined) {
        const p = launch.params;
        assert.ok(p.variant === 'vtiled' && `${p.bm}x${p.bn}x${p.bk}` === `${shape.bm}x${shape.bn}x${shape.bk}`, `class ${c.bound}: the card's class tile`);
      }
      checkGemmRun(dir, rng, { dtype: c.dtype, transA: c.transA, transB: c.transB, alpha, beta: c.beta, p: launch.params, shapes: c.shapes });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/**
 * Ragged members of every size 1-33 (max(m, n, k) = s, the other two drawn below it, k = 0 and
 * m or n = 0 among them), as the plan classes them.
 */
function raggedShapes(rng: Rng): [number, number, number][] {
  const out: [number, number, number][] = [[0, 5, 5], [5, 0, 5], [1, 1, 1], [6, 4, 0], [19, 23, 0]];
  for (let s = 1; s <= 33; s++) {
    out.push([s, s, s], [s, rng.int(1, s), rng.int(0, s)], [rng.int(1, s), s, rng.int(1, s)], [rng.int(1, s), rng.int(1, s), s]);
  }
  return out;
}

// The staged classes (8, 16, 24, 32) on ragged members, every transpose and dtype, beta 0 and not:
// each class launch of the plan over its members in launch order, then zero rows (device form).
for (const dtype of ['float64', 'float32'] as const) for (const [transA, transB] of [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']] as const) {
  const beta = (transA === 'N') === (transB === 'N') ? 0 : 0.75;
  test(`vbatched gemm staged classes on ragged members (${dtype} ${transA}${transB} beta ${beta}) run on the host`, { skip, timeout: 900_000 }, () => {
    const rng = new Rng(transA === 'N' ? 7 : 9);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbatch-'));
    try {
      const alpha = 0.625;
      const shapes = raggedShapes(rng);
      const plan = planVbatchedGemm({ dtype, transA, transB, alpha, beta, shapes: shapes.map(([m, n, k]) => ({ m, n, k })) }, tuningFor('sm_90', 'gemm'));
      const staged = plan.launches.filter((l) => l.params.variant === 'vstaged');
      assert.deepEqual(staged.map((l) => l.bound), [32, 24, 16, 8]);
      for (const l of staged) {
        // Zero rows enough that one block has members and zero rows, and one has zero rows only.
        const perBlock = l.params.variant === 'vstaged' ? l.params.members : 1;
        checkGemmRun(dir, rng, { dtype, transA, transB, alpha, beta, p: l.params, shapes: [...l.members].map((i) => shapes[i]!) }, 2 * perBlock - 1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

// The device-count form (gemm's device form): the staged classes and a tiled one on ragged members,
// fewer member slots than members (every block takes several in turn), and rows of work past the
// class's count that must never be read.
for (const [dtype, transA, transB, beta] of [['float64', 'N', 'T', 0.75], ['float32', 'T', 'N', 0]] as const) {
  test(`vbatched gemm device-count class kernels looping over ragged members (${dtype} ${transA}${transB} beta ${beta}) run on the host`, { skip, timeout: 900_000 }, () => {
    const rng = new Rng(transA === 'N' ? 17 : 19);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbatch-'));
    try {
      const alpha = -0.875;
      const shapes: [number, number, number][] = [...raggedShapes(rng), [40, 47, 48], [48, 1, 33], [33, 33, 0], [45, 45, 45]];
      const tuning = { ...tuningFor('sm_90', 'gemm'), vbatchedMma: false, vbatchedLarge: undefined };
      const plan = planVbatchedGemm({ dtype, transA, transB, alpha, beta, shapes: shapes.map(([m, n, k]) => ({ m, n, k })) }, tuning);
      assert.deepEqual(plan.launches.map((l) => l.bound), [48, 32, 24, 16, 8]);
      for (const l of plan.launches) {
        const p = { ...l.params, deviceCount: true };
        const perSlot = p.variant === 'vstaged' ? p.members : 1;
        checkGemmRun(dir, rng, { dtype, transA, transB, alpha, beta, p, shapes: [...l.members].map((i) => shapes[i]!) }, 3, { slots: Math.max(1, Math.min(2 * perSlot, l.members.length - 1)) });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

interface PotrfCase { dtype: DType; uplo: Uplo; bound: number; orders: number[] }

const POTRF_CASES: readonly PotrfCase[] = [
  // The warp design (order 0 writes info 0), float32 class 8 its classic step.
  { dtype: 'float64', uplo: 'lower', bound: 8, orders: [0, 1, 7, 8, 5, 8, 6] },
  { dtype: 'float32', uplo: 'upper', bound: 8, orders: [8, 0, 1, 7, 6, 4] },
  { dtype: 'float64', uplo: 'upper', bound: 16, orders: [16, 15, 1, 9, 12, 13] },
  { dtype: 'float32', uplo: 'lower', bound: 32, orders: [32, 31, 1, 25, 30, 28] },
  // The register design: nm below the class's panels, stops inside a panel.
  { dtype: 'float64', uplo: 'lower', bound: 48, orders: [48, 47, 1, 33, 40, 41] },
  { dtype: 'float32', uplo: 'upper', bound: 64, orders: [64, 63, 1, 49, 60, 57] },
  // The panel design, loop-inclusive, shared memory for the bound.
  { dtype: 'float64', uplo: 'upper', bound: 128, orders: [128, 127, 1, 65, 100, 90] },
  { dtype: 'float32', uplo: 'lower', bound: 256, orders: [256, 255, 1, 129, 200, 150] },
];

for (const c of POTRF_CASES) {
  test(`vbatched potrf class ${c.bound} (${c.dtype} ${c.uplo}) run on the host`, { skip, timeout: 900_000 }, () => {
    const rng = new Rng(100 + c.bound);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbatch-'));
    try {
      const upper = c.uplo === 'upper';
      const p = potrfClassParams(c.dtype, c.uplo, c.bound, H100.sharedPerBlockOptin - 1024, tuningFor('sm_90', 'potrf'));
      const at = { next: 3 };
      const members = c.orders.map((n) => ({ n, ...place(rng, at, n, n) }));
      const len = at.next + 2;
      const buf = new Float64Array(len).fill(SENTINEL);
      // The last two members: one fails at a planted pivot, one has a NaN in its triangle.
      const failAt = members.length - 2, nanAt = members.length - 1;
      members.forEach((q, idx) => {
        // Symmetric, diagonally dominant: positive definite.
        for (let j = 0; j < q.n; j++) for (let i = 0; i < q.n; i++) {
          const inTri = upper ? i <= j : i >= j;
          buf[q.off + i + j * q.ld] = round(c.dtype, inTri ? (i === j ? q.n + 1 + rng.uniform() : rng.uniform()) : rng.uniform());
        }
        const e = (i: number, j: number): number => q.off + (upper ? j + i * q.ld : i + j * q.ld);
        if (idx === failAt) { const f = rng.int(1, q.n - 1); buf[e(f, f)] = -4; }
        if (idx === nanAt) { const r = rng.int(1, q.n - 1); buf[e(r, rng.int(0, r))] = NaN; }
      });
      const src = vbatchedPotrfSource(p);
      const input = [
        launchLine(members.length, vbatchedPotrfLaunch(p, members.length), len),
        ...members.map((q, idx) => `${q.off} ${q.n} ${q.ld} ${members.length - 1 - idx}`),
        ...[...buf].map(String),
      ].join('\n');
      const out = runHost(dir, src, false, `${input}\n`);
      const got = out.slice(0, len), info = out.slice(len);
      const eps = DTYPE_EPS[c.dtype];
      const inside = new Uint8Array(len);
      members.forEach((q, idx) => {
        const ref = new Float64Array(Math.max(1, q.n * q.n));
        for (let j = 0; j < q.n; j++) for (let i = 0; i < q.n; i++) { ref[i + j * q.n] = buf[q.off + i + j * q.ld]!; inside[q.off + i + j * q.ld] = 1; }
        const want = potrfMatrix(ref, 0, q.n, q.n, upper);
        const where = `${src.entry}: member ${idx} (n = ${q.n})`;
        assert.equal(info[members.length - 1 - idx], want, `${where}: info`);
        if (idx === failAt) assert.ok(want > 0, `${where} was planted to fail`);
        for (let j = 0; j < q.n; j++) for (let i = 0; i < q.n; i++) {
          const e = q.off + i + j * q.ld;
          if (!(upper ? i <= j : i >= j)) { assert.ok(Object.is(got[e], buf[e]), `${where} (${i}, ${j}) outside the triangle changed`); continue; }
          const w = ref[i + j * q.n]!, g = got[e]!;
          const ok = Object.is(g, w) || (Number.isNaN(g) && Number.isNaN(w)) || Math.abs(g - w) <= 64 * Math.max(1, q.n) * eps * (1 + Math.abs(w));
          assert.ok(ok, `${where} (${i}, ${j}) = ${g}, want ${w}`);
        }
      });
      for (let e = 0; e < len; e++) if (inside[e] === 0) assert.ok(Object.is(got[e], buf[e]), `${src.entry}: element ${e} outside the members changed`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
