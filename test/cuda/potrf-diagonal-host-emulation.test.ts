/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the large Cholesky's fused diagonal
 * kernel (kernels/potrf/generate-diagonal.ts) compiled as C++ for the host
 * (test/helpers/potrf-diagonal-host-harness.cpp) and run on SPD blocks: both uplo and precisions,
 * a full block and a short last block (the identity padding), an odd ld, a second matrix that
 * fails at a planted column. Checked: the factor against potrfMatrix (the CPU reference), W L = I
 * by a residual that does not depend on either, zeros above W's diagonal, elements of A outside
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
import { potrfDiagonalSource } from '../../src/cuda/kernels/potrf/generate-diagonal.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/potrf-diagonal-host-harness.cpp');

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
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', join(dir, 'h')]);
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
          if (i < j) { assert.equal(wij, 0, `W above its diagonal at (${i}, ${j}), ${where}`); continue; }
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
