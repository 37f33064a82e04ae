/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the large Cholesky's fused diagonal
 * kernel (kernels/potrf/generate-diagonal.ts) compiled as C++ for the host
 * (test/helpers/potrf-diagonal-host-harness.cpp) and run on SPD blocks: both uplo and precisions,
 * a full block and a short last block (the identity padding), an odd ld, a second matrix that
 * fails at a planted column. Checked: the factor against potrfMatrix (the CPU reference), W L = I
 * by a residual that does not depend on either, zeros above the diagonal in W's diagonal tiles, elements of A outside
 * the factor's triangle bit-identical, info. A check of the CUDA source without a GPU.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import { potrfDiagonalSource, potrfDiagonalThreads } from '../../src/cuda/kernels/potrf/generate-diagonal.js';
import { POTRF_PANEL_ROWS, potrfPanelSolveSource, potrfPanelSolveThreads } from '../../src/cuda/kernels/potrf/generate-panel-solve.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/potrf-diagonal-host-harness.cpp');
const PANEL_HARNESS = resolve('test/helpers/potrf-panel-solve-host-harness.cpp');

test('the fused diagonal kernel run on the host factors and inverts', { skip, timeout: 900_000 }, () => {
  const rng = new Rng(21);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-diag-'));
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const uplo of ['lower', 'upper'] as Uplo[]) {
      // Small blocks of both thread layouts' logic (split: a thread per tile of each triangle), then
      // once each the largest split block and the tile-pair layout (over 96), with a padded panel.
      const sizes: readonly (readonly [number, number])[] = [[16, 16], [16, 11], [8, 5], ...(dtype === 'float64' && uplo === 'lower' ? [[96, 93], [128, 100]] as const : [])];
      for (const [nb, size] of sizes) {
        const src = potrfDiagonalSource({ dtype, uplo, nb });
        writeFileSync(join(dir, 'kernel.cu'), src.source);
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-DHNB=${nb}`, `-DHTHREADS=${potrfDiagonalThreads(nb)}`, `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', join(dir, 'h')]);
        const count = 2, ld = size + 3, stride = ld * size + 5, column = 40, fail = Math.min(size > 64 ? 70 : 3, size - 1);
        const a = new Float64Array(count * stride);
        for (let e = 0; e < a.length; e++) a[e] = dtype === 'float32' ? Math.fround(rng.uniform()) : rng.uniform();
        for (let q = 0; q < count; q++) {
          // SPD: B B^T / size + I, written into the factor's triangle (the other keeps its noise).
          const b = Array.from({ length: size * size }, () => rng.uniform());
          for (let j = 0; j < size; j++) for (let i = j; i < size; i++) {
            let s = i === j ? 1 : 0;
            for (let k = 0; k < size; k++) s += (b[i + k * size]! * b[j + k * size]!) / size;
            if (q === 1 && i === fail && j === fail) s = -1;   // the second matrix fails at column `fail`
            a[q * stride + (uplo === 'lower' ? i + j * ld : j + i * ld)] = dtype === 'float32' ? Math.fround(s) : s;
          }
        }
        const input = `${count} ${size} ${ld} ${stride} ${column}\n${[...a].join('\n')}\n`;
        const r = spawnSync(join(dir, 'h'), { input, maxBuffer: 1 << 28 });
        assert.equal(r.status, 0, r.stderr.toString());
        const out = r.stdout.toString().trim().split('\n').map(Number);
        const info = out.slice(0, count), got = out.slice(count, count + count * stride), w = out.slice(count + count * stride);
        const where = `${dtype} ${uplo} nb ${nb} size ${size}`;
        assert.deepEqual(info, [0, column + fail + 1], `info, ${where}`);
        const eps = dtype === 'float64' ? 2.2e-16 : 1.2e-7;
        // Matrix 0: the factor against the reference, W L = I, and the untouched elements.
        const want = Float64Array.from(a.subarray(0, stride));
        assert.equal(potrfMatrix(want, 0, ld, size, uplo === 'upper'), 0);
        const inTri = (e: number): boolean => { const i = e % ld, j = Math.floor(e / ld); return i < size && j < size && (uplo === 'lower' ? i >= j : i <= j); };
        for (let e = 0; e < stride; e++) {
          if (inTri(e)) assert.ok(Math.abs(got[e]! - want[e]!) <= 200 * size * eps * (1 + Math.abs(want[e]!)), `L at ${e}, ${where}: ${got[e]} vs ${want[e]}`);
          else assert.ok(Object.is(got[e], a[e]), `element ${e} outside the triangle changed, ${where}`);
        }
        const L = (i: number, j: number): number => (i < j ? 0 : got[uplo === 'lower' ? i + j * ld : j + i * ld]!);
        for (let i = 0; i < nb; i++) for (let j = 0; j < nb; j++) {
          const wij = w[i + j * nb]!;
          // Above the diagonal W is written only inside its 4 x 4 diagonal tiles (zeros); the rest is unspecified.
          if (i < j) { if (Math.floor(i / 4) === Math.floor(j / 4)) assert.equal(wij, 0, `W above its diagonal at (${i}, ${j}), ${where}`); continue; }
          if (i >= size || j >= size) { assert.equal(wij, i === j ? 1 : 0, `W's padding at (${i}, ${j}), ${where}`); continue; }
          let s = 0;
          for (let k = j; k <= i; k++) s += w[i + k * nb]! * L(k, j);
          assert.ok(Math.abs(s - (i === j ? 1 : 0)) <= 200 * size * eps, `(W L)(${i}, ${j}) = ${s}, ${where}`);
        }
        // Matrix 1: the columns before the failing one as the reference's.
        const want1 = Float64Array.from(a.subarray(stride, 2 * stride));
        assert.equal(potrfMatrix(want1, 0, ld, size, uplo === 'upper'), fail + 1);
        for (let j = 0; j < fail; j++) for (let i = j; i < size; i++) {
          const e = stride + (uplo === 'lower' ? i + j * ld : j + i * ld);
          assert.ok(Math.abs(got[e]! - want1[e - stride]!) <= 200 * size * eps * (1 + Math.abs(want1[e - stride]!)), `failed matrix's column ${j}, ${where}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the panel solve run on the host: A21 W^T over the triangle only (a NaN leaves the columns before it as the reference)', { skip, timeout: 900_000 }, () => {
  const rng = new Rng(22);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-psolve-'));
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const uplo of ['lower', 'upper'] as Uplo[]) {
      for (const [nb, size, m] of [[16, 16, 70], [16, 13, 5], [8, 8, 130]] as const) {
        const src = potrfPanelSolveSource({ dtype, uplo, nb });
        writeFileSync(join(dir, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemRaw[];', 'unsigned char* smemRaw = g_smem;'));
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-DHNB=${nb}`, `-DHROWS=${POTRF_PANEL_ROWS}`, `-DHTHREADS=${potrfPanelSolveThreads(nb)}`, `-I${dir}`, `-I${resolve('test/helpers')}`, PANEL_HARNESS, '-o', join(dir, 'p')]);
        // A (size + m) x (size + m) SPD matrix: its factor's first `size` columns are the reference.
        const n = size + m, count = 2, ld = n + 1, stride = ld * n + 3;
        const round = (x: number): number => (dtype === 'float32' ? Math.fround(x) : x);
        const a = new Float64Array(count * stride);
        for (let e = 0; e < a.length; e++) a[e] = round(rng.uniform());
        const w = new Float64Array(count * nb * nb);
        const ref = a.slice();
        const lowerAt = (q: number, i: number, j: number): number => q * stride + (uplo === 'lower' ? i + j * ld : j + i * ld);
        for (let q = 0; q < count; q++) {
          const b = Array.from({ length: n * n }, () => rng.uniform());
          for (let j = 0; j < n; j++) for (let i = j; i < n; i++) {
            let s = i === j ? 1 : 0;
            for (let k = 0; k < n; k++) s += (b[i + k * n]! * b[j + k * n]!) / n;
            a[lowerAt(q, i, j)] = ref[lowerAt(q, i, j)] = round(s);
          }
          // The reference: potrf of the whole matrix; the kernel's input: the panel below the
          // diagonal block as it stands before the solve, W = L11^-1 from the reference's L11.
          assert.equal(potrfMatrix(ref.subarray(q * stride, (q + 1) * stride) as Float64Array, 0, ld, n, uplo === 'upper'), 0);
          const L = (i: number, j: number): number => (i < j ? 0 : ref[lowerAt(q, i, j)]!);
          for (let c = 0; c < size; c++) for (let i = c; i < size; i++) {
            let s = i === c ? 1 : 0;
            for (let k = c; k < i; k++) s -= L(i, k) * w[q * nb * nb + k + c * nb]!;
            w[q * nb * nb + i + c * nb] = round(s / L(i, i));
          }
          // Above W's diagonal tiles the diagonal kernel writes nothing: the solve must not read it into a product.
          for (let c = 0; c < nb; c++) for (let i = 0; i < c; i++) if (Math.floor(i / 4) !== Math.floor(c / 4)) w[q * nb * nb + i + c * nb] = NaN;
        }
        // Matrix 1: a NaN at panel row 2, column size - 2 (after the solve row 2 is NaN from that column on).
        const nanRow = size + 2, nanCol = size - 2;
        a[lowerAt(1, nanRow, nanCol)] = NaN;
        const offset = uplo === 'lower' ? size : size * ld;   // the panel's first element
        const input = `${count} ${m} ${size} ${ld} ${stride}\n${[...a.subarray(offset)].map((x) => (Number.isNaN(x) ? 'nan' : String(x))).join('\n')}\n${[...new Float64Array(offset)].join('\n')}\n${[...w].map((x) => (Number.isNaN(x) ? 'nan' : String(x))).join('\n')}\n`;
        // (The harness reads count * stride elements from the panel's offset: A shifted, padded at the end.)
        const r = spawnSync(join(dir, 'p'), { input, maxBuffer: 1 << 28 });
        assert.equal(r.status, 0, r.stderr.toString());
        const got = new Float64Array(a.length);
        r.stdout.toString().trim().split('\n').forEach((l, e) => { if (offset + e < got.length) got[offset + e] = /nan/.test(l) ? NaN : Number(l); });
        const eps = dtype === 'float64' ? 2.2e-16 : 1.2e-7;
        const where = `${dtype} ${uplo} nb ${nb} size ${size} m ${m}`;
        for (let q = 0; q < count; q++) for (let i = size; i < n; i++) for (let j = 0; j < size; j++) {
          const e = lowerAt(q, i, j), want = ref[e]!;
          if (q === 1 && i === nanRow && j >= nanCol) assert.ok(Number.isNaN(got[e]), `${where}: NaN from its column on`);
          else assert.ok(Math.abs(got[e]! - want) <= 200 * n * eps * (1 + Math.abs(want)), `${where}: panel (${i}, ${j}) of matrix ${q}: ${got[e]} vs ${want}`);
        }
        for (let e = offset; e < a.length; e++) {
          const q = Math.floor(e / stride), o = e - q * stride, i = o % ld, j = Math.floor(o / ld);
          const inPanel = q < count && o < ld * n && (uplo === 'lower' ? i >= size && i < n && j < size : j >= size && j < n && i < size);
          if (!inPanel) assert.ok(Object.is(got[e], a[e]), `${where}: element ${e} outside the panel changed`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
