/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the row interchanges of variable-size
 * getrs and gesv (solve/generate-permute-vbatched.ts) compiled as C++ for the host
 * (test/helpers/vbatched-trsm-host-harness.cpp, -DPERMUTE) and run as the launcher runs them: the
 * launches of permuteLaunches (members up to 512, then the larger), with fewer blocks than members
 * (the walk over members). Members of orders 1 to 600 (beyond the buffer's 256 threads: one column
 * a pass; small ones: many columns a pass), B's columns 1 to 300 (column chunks of grid.y, uneven),
 * ragged ld, gaps, pivots drawn as getrf's (p_j in [j, n)) with one out of range (not applied),
 * both directions, both dtypes, with and without info (gesv skips the members whose info is set).
 * Checked bit for bit on the whole buffer against dlaswp done here: B's rows interchanged in order
 * (op N) or in reverse (op T), every other element unchanged. Then the device form's use of it (one
 * launch over the table of getrs's and gesv's check kernel: invalid members' rows zeros but the
 * index, gesv's codes skipped).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { variable } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { memberFields } from '../../src/cuda/kernels/common/members.js';
import { keptMembers, permuteConfig, permuteLaunches, permuteVbatchedCap, permuteVbatchedSource } from '../../src/cuda/kernels/solve/index.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { Rng } from '../helpers/random.js';
import { HOST_EMULATION_SKIP, parseHarnessNumber } from '../helpers/recording-device.js';

const HARNESS = resolve('test/helpers/vbatched-trsm-host-harness.cpp');
const SENTINEL = 12345.5;

/** The source as the host compiles it: dynamic shared memory from the harness's buffer. */
const hostSource = (src: KernelSource): string =>
  src.source.replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_shared;');

/** [n, nrhs] per member: empty ones (left out), small and wide, beyond the buffer's 256, beyond 512. */
const SHAPES: readonly (readonly [number, number])[] = [
  [7, 3], [1, 1], [0, 4], [33, 70], [5, 0], [64, 300], [257, 5], [2, 9], [100, 17], [600, 3], [8, 1], [513, 2], [40, 8],
];

for (const dtype of ['float64', 'float32'] as DType[]) for (const inverse of [false, true]) for (const withInfo of [false, true]) {
  test(`vbatched row interchanges (${dtype}, ${inverse ? 'P^T B, op T' : 'P B, op N'}${withInfo ? ', members with info set skipped' : ''}) run on the host`, { skip: HOST_EMULATION_SKIP, timeout: 900_000 }, () => {
    const rng = new Rng((dtype === 'float64' ? 50 : 60) + (inverse ? 2 : 0) + (withInfo ? 1 : 0));
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vblaswp-'));
    try {
      let next = 2;
      const places = SHAPES.map(([n, nrhs]) => {
        const ld = Math.max(1, n + rng.int(0, 3));
        const off = next;
        next += ld * nrhs + rng.int(1, 4);
        return { n, nrhs, ld, off };
      });
      const len = next + 2;
      const buf = allocate(dtype, len).fill(SENTINEL);
      for (const p of places) for (let j = 0; j < p.nrhs; j++) for (let i = 0; i < p.n; i++) buf[p.off + i + j * p.ld] = rng.uniform();
      // Pivots as getrf gives them (0-based, p_j in [j, n)); member 3 has one out of range, which is not applied.
      const pivotStride = Math.max(...SHAPES.map(([n]) => n));
      const ipiv = new Int32Array(SHAPES.length * pivotStride).fill(-7);
      places.forEach((p, q) => { for (let j = 0; j < p.n; j++) ipiv[q * pivotStride + j] = rng.int(j, p.n - 1); });
      ipiv[3 * pivotStride + 5] = 40;
      const info = SHAPES.map((_, q) => (withInfo && q % 3 === 0 ? q + 1 : 0));
      // The reference: dlaswp on each member (in order, or in reverse for P^T), skipping members with info set.
      const want = buf.slice();
      places.forEach((p, q) => {
        if (info[q] !== 0) return;
        for (let s = 0; s < p.n; s++) {
          const j = inverse ? p.n - 1 - s : s;
          const r = ipiv[q * pivotStride + j]!;
          if (r <= j || r >= p.n) continue;
          for (let c = 0; c < p.nrhs; c++) { const x = want[p.off + j + c * p.ld]!; want[p.off + j + c * p.ld] = want[p.off + r + c * p.ld]!; want[p.off + r + c * p.ld] = x; }
        }
      });
      // The launcher's members and launches (batch B described on a planning device: only its fields are read).
      const dev = new PlanningDevice(H100);
      const data = dev.alloc(dtype, len);
      const fb = memberFields(variable(places.map((p) => ({ data, rows: p.n, cols: p.nrhs, ld: p.ld, offset: p.off }))));
      const kept = keptMembers(fb);
      const launches = permuteLaunches(fb, kept, dtype, H100.sharedPerBlockOptin - 1024);
      assert.deepEqual(launches.map((l) => l.end - l.first), [9, 2]);
      const src = permuteVbatchedSource({ dtype, inverse });
      writeFileSync(join(dir, 'kernel.cu'), hostSource(src));
      const exe = join(dir, 'h');
      execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, '-DPERMUTE', `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
      let got: FloatArray = buf.slice();
      for (const l of launches) {
        // Fewer blocks than members: the walk over members in steps of the grid.
        const gx = Math.min(l.config.grid[0], 3);
        const input = [
          `${l.end - l.first} ${gx} ${l.config.grid[1]} ${l.config.block[0]} 1 ${l.config.sharedBytes ?? 0} ${len}`,
          `${l.nMax} ${permuteVbatchedCap(l.nMax)} ${pivotStride} ${withInfo ? 1 : 0}`,
          `${info.length} ${info.join(' ')}`,
          `${ipiv.length} ${ipiv.join(' ')}`,
          ...Array.from(kept.order.subarray(l.first, l.end), (i) => `${places[i]!.off} ${places[i]!.n} ${places[i]!.nrhs} ${places[i]!.ld} ${i}`),
          ...[...got].map(String),
        ].join('\n');
        const r = spawnSync(exe, { input: `${input}\n`, maxBuffer: 1 << 28, timeout: 600_000 });
        assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
        const out = r.stdout.toString().trim().split('\n').map(parseHarnessNumber);
        got = allocate(dtype, len);
        for (let e = 0; e < len; e++) got[e] = out[e]!;
      }
      for (let e = 0; e < len; e++) if (!Object.is(got[e], want[e])) assert.fail(`${src.entry}: element ${e} is ${got[e]}, want ${want[e]}`);
      // The case moved rows (the check is not of an identity).
      assert.ok(want.some((x, e) => x !== buf[e]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/**
 * The device form's use of the same kernel (solve/launch-vdevice-lu.ts): one launch over the table
 * the check kernel writes, a row per member in batch order (invalid members: n = 0 but the index),
 * the batch index i its own (pivots at ipiv[i * stride]), gesv's codes as info (skipped where
 * non-zero: invalid and singular members), shared memory for the largest order the maxima allow.
 */
for (const inverse of [false, true]) {
  test(`vbatched row interchanges over the device form's table (float64, ${inverse ? 'P^T B' : 'P B'}, codes skipped) run on the host`, { skip: HOST_EMULATION_SKIP, timeout: 900_000 }, () => {
    const dtype: DType = 'float64';
    const rng = new Rng(70 + (inverse ? 1 : 0));
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vdlaswp-'));
    try {
      let next = 2;
      const places = SHAPES.map(([n, nrhs]) => {
        const ld = Math.max(1, n + rng.int(0, 3));
        const off = next;
        next += ld * nrhs + rng.int(1, 4);
        return { n, nrhs, ld, off };
      });
      const len = next + 2;
      const buf = allocate(dtype, len).fill(SENTINEL);
      for (const p of places) for (let j = 0; j < p.nrhs; j++) for (let i = 0; i < p.n; i++) buf[p.off + i + j * p.ld] = rng.uniform();
      const nMax = 600, nrhsMax = 300;
      const ipiv = new Int32Array(SHAPES.length * nMax).fill(-7);
      places.forEach((p, q) => { for (let j = 0; j < p.n; j++) ipiv[q * nMax + j] = rng.int(j, p.n - 1); });
      // Member 2 invalid (its row zeros but the index), members 6 and 9 singular (a positive code), 4 an invalid code too.
      const codes = SHAPES.map((_, q) => (q === 2 || q === 4 ? -3 : q === 6 || q === 9 ? q : 0));
      const want = buf.slice();
      places.forEach((p, q) => {
        if (codes[q] !== 0) return;
        for (let s = 0; s < p.n; s++) {
          const j = inverse ? p.n - 1 - s : s;
          const r = ipiv[q * nMax + j]!;
          if (r <= j || r >= p.n) continue;
          for (let c = 0; c < p.nrhs; c++) { const x = want[p.off + j + c * p.ld]!; want[p.off + j + c * p.ld] = want[p.off + r + c * p.ld]!; want[p.off + r + c * p.ld] = x; }
        }
      });
      const config = permuteConfig(SHAPES.length, nMax, nrhsMax, dtype, H100.sharedPerBlockOptin - 1024, 'b.maxRows', 'members are');
      const src = permuteVbatchedSource({ dtype, inverse });
      writeFileSync(join(dir, 'kernel.cu'), hostSource(src));
      const exe = join(dir, 'h');
      execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, '-DPERMUTE', `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
      const input = [
        `${SHAPES.length} ${Math.min(config.grid[0], 4)} ${config.grid[1]} ${config.block[0]} 1 ${config.sharedBytes ?? 0} ${len}`,
        `${nMax} ${permuteVbatchedCap(nMax)} ${nMax} 1`,
        `${codes.length} ${codes.join(' ')}`,
        `${ipiv.length} ${ipiv.join(' ')}`,
        // The check's rows: a valid member's (B; n, nrhs, ldB, i), an invalid one's zeros but i.
        ...places.map((p, i) => (codes[i]! < 0 ? `0 0 0 0 ${i}` : `${p.off} ${p.n} ${p.nrhs} ${p.ld} ${i}`)),
        ...[...buf].map(String),
      ].join('\n');
      const r = spawnSync(exe, { input: `${input}\n`, maxBuffer: 1 << 28, timeout: 600_000 });
      assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      const out = r.stdout.toString().trim().split('\n').map(parseHarnessNumber);
      for (let e = 0; e < len; e++) if (!Object.is(out[e], want[e])) assert.fail(`${src.entry}: element ${e} is ${out[e]}, want ${want[e]}`);
      assert.ok(want.some((x, e) => x !== buf[e]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
