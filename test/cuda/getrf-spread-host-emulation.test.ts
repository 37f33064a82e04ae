/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the blocked LU's spread leaf
 * (kernels/getrf/generate-spread.ts: an m x w panel over G blocks that wait for each other's
 * pivot candidates) compiled as C++ for the host with every block of the grid running at once
 * (test/helpers/getrf-spread-host-harness.cpp: a process per block, a thread per CUDA thread, the
 * global memory shared), against the CPU reference's getrf (dgetf2) on the same panel: pivots
 * (absolute: off + the panel's row) and info exact, the factors to rounding, everything outside
 * the panels bit for bit; with the search in a phase of its own and fused into the previous
 * column's update (params.ts fusedSearch). Partial last blocks, panels narrower than the kernel's width, several
 * matrices (consecutive tickets), a zero column (info), a tie (the first row wins), NaN; slots
 * start as NaN garbage that the tags must not accept. A check of the kernel's logic (the tickets,
 * the tagged words, the parity of the slots, the swaps and updates of the rows a block owns);
 * test/gpu/factor-cases.ts ("spread leaves") is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGetrf } from '../../src/cpu/lapack/index.js';
import { getrfSpreadSource, spreadSlotReals, spreadSyncInts } from '../../src/cuda/kernels/getrf/index.js';
import { Rng } from '../helpers/random.js';
import { assertLayoutClose, layoutLength, oddLayout, randomBuffer } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/getrf-spread-host-harness.cpp');
const WIDTH = 64;

test('the spread leaf on the host, every block at once: dgetf2 of m x w panels', { skip, timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-getrf-spread-'));
  const rng = new Rng(91);
  const compiled = new Set<string>();
  try {
    const cases: [DType, number, number, number, number, number][] = [
      // dtype, m, w, rows a block, threads, matrices
      ['float64', 100, 20, 32, 64, 2],    // G = 4, the last block 4 rows
      ['float64', 70, 64, 32, 64, 1],     // the full width, G = 3
      ['float64', 40, 40, 32, 64, 2],     // the last block holds rows 32-39, columns to 39
      ['float32', 96, 33, 32, 64, 2],
      ['float64', 64, 16, 32, 256, 1],    // the production thread count (8 column groups)
      ['float64', 130, 24, 64, 64, 2],    // RB = T: one row a thread, one column group
      ['float32', 300, 40, 128, 64, 2],   // two rows a thread (RB 128, 64 threads), as float32's 512-row blocks
    ];
    // Each case with the search in its own phase and fused into the previous column's update.
    for (const fusedSearch of [false, true]) for (const [dtype, m, w, rowsPerBlock, threads, count] of cases) {
      const G = Math.ceil(m / rowsPerBlock);
      const src = getrfSpreadSource({ dtype, width: WIDTH, rowsPerBlock, threads, maxBlocks: Math.ceil(G / 32) * 32, cluster: 0, fusedSearch });
      const exe = join(dir, `${src.entry}`);
      if (!compiled.has(exe)) {
        const text = src.source.replace('extern __shared__ __align__(16) unsigned char smemRaw[];', 'alignas(16) static unsigned char smemRaw[1 << 17];');
        assert.notEqual(text, src.source, 'the dynamic shared array is declared as the harness expects');
        writeFileSync(join(dir, 'kernel.cu'), text);
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
        compiled.add(exe);
      }
      const l = oddLayout(m, w, count);
      const a = randomBuffer(rng, dtype, layoutLength(l));
      const at = (mat: number, i: number, j: number): number => l.offset + mat * l.stride + i + j * l.ld;
      // Matrix 0: a tie in column 0 (rows 5 and 9, the first wins) and a NaN below the pivot of
      // column 2 in the last row; the last matrix: a zero column at 3 (info 4 + off).
      a[at(0, 5, 0)] = 4; a[at(0, 9, 0)] = -4; a[at(0, m - 1, 2)] = NaN;
      if (count > 1) for (let i = 0; i < m; i++) a[at(count - 1, i, 3)] = 0;
      const off = 7, pivotStride = off + w + 2;
      const want = a.slice(), wantPiv = new Int32Array(count * w), wantInfo = new Int32Array(count);
      cpuGetrf({ a: strided(want, l), ipiv: wantPiv, pivotStride: w, info: wantInfo });
      const piv = new Int32Array(count * pivotStride).fill(-7), info = new Int32Array(count);
      const lenSlots = count * spreadSlotReals(WIDTH, G), lenSync = spreadSyncInts(count, G);
      const text = (x: ArrayLike<number>): string => Array.from(x, (v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');
      const head = [count, G, threads, a.length, piv.length, l.offset, l.stride, l.ld, pivotStride, m, w, off, lenSlots, lenSync];
      const r = spawnSync(exe, { input: `${head.join(' ')}\n${text(a)}\n${text(piv)}\n${text(info)}\n`, maxBuffer: 1 << 28, timeout: 300_000 });
      const what = `spread${fusedSearch ? ' (fused search)' : ''} ${dtype} ${m} x ${w}, ${rowsPerBlock} rows a block, ${threads} threads, ${count} matrices`;
      assert.equal(r.status, 0, `${what}: the harness failed or hung (${r.status} ${r.signal}): ${r.stderr?.toString()}`);
      const lines = r.stdout.toString().trim().split('\n');
      const got: FloatArray = a.slice();
      got.forEach((_, i) => { got[i] = /nan/.test(lines[i]!) ? NaN : Number(lines[i]); });
      const gotPiv = lines.slice(a.length, a.length + piv.length).map(Number);
      const gotInfo = lines.slice(a.length + piv.length, a.length + piv.length + count).map(Number);
      for (let mat = 0; mat < count; mat++) {
        const expected = Array.from({ length: pivotStride }, (_, j) => (j >= off && j < off + w ? off + wantPiv[mat * w + j - off]! : -7));
        assert.deepEqual(gotPiv.slice(mat * pivotStride, (mat + 1) * pivotStride), expected, `${what}: pivots of matrix ${mat}`);
        assert.equal(gotInfo[mat], wantInfo[mat]! > 0 ? off + wantInfo[mat]! : 0, `${what}: info of matrix ${mat}`);
      }
      if (count > 1) assert.equal(wantInfo[count - 1], 4, 'the planted zero column');
      assert.equal(wantPiv[0], 5, 'the first of two largest values');
      const tol = 60 * m * DTYPE_EPS[dtype] * 4;
      assertLayoutClose(got, want, l, tol, what);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
