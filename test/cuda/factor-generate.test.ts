/**
 * The factor/solve generators without a GPU: pure (same parameters, same source; every parameter
 * shows in the source or the entry name), and, where nvcc is installed, representative kernels
 * compile for sm_90 with no local-memory spills (the register designs must keep the matrix in
 * registers). Skipped with one line where nvcc is absent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { getrfPanelSource, getrfUpdateSource } from '../../src/cuda/kernels/getrf/generate-panel.js';
import { getrfRegisterSource } from '../../src/cuda/kernels/getrf/generate-register.js';
import { getrfSmallSource } from '../../src/cuda/kernels/getrf/generate-small.js';
import { potrfRegisterSource } from '../../src/cuda/kernels/potrf/generate-register.js';
import { potrfPanelSource } from '../../src/cuda/kernels/potrf/generate-panel.js';
import { potrfSmallSource } from '../../src/cuda/kernels/potrf/generate-small.js';
import { gesvSmallSource, posvSmallSource } from '../../src/cuda/kernels/solve/generate-small.js';
import { substituteSource } from '../../src/cuda/kernels/solve/generate-substitute.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet, type PtxasReport } from '../helpers/nvcc.js';
import { REGISTER_DESIGN_MAX, registerWarps } from '../../src/cuda/kernels/common/register-tile.js';

test('generators are pure and every parameter changes the kernel', () => {
  const base = { dtype: 'float64', n: 8, uplo: 'lower', kind: 'strided', warps: 4, classic: false } as const;
  assert.equal(potrfSmallSource(base).source, potrfSmallSource({ ...base }).source);
  const variants: KernelSource[] = [
    potrfSmallSource(base), potrfSmallSource({ ...base, dtype: 'float32' }), potrfSmallSource({ ...base, n: 9 }),
    potrfSmallSource({ ...base, uplo: 'upper' }), potrfSmallSource({ ...base, kind: 'pointer' }), potrfSmallSource({ ...base, warps: 2 }), potrfSmallSource({ ...base, classic: true }),
    getrfSmallSource({ dtype: 'float64', rows: 8, cols: 8, kind: 'strided', warps: 4 }),
    getrfSmallSource({ dtype: 'float64', rows: 8, cols: 7, kind: 'strided', warps: 4 }),
    potrfPanelSource({ dtype: 'float64', uplo: 'lower', kind: 'strided', ib: 8, kb: 16 }),
    potrfPanelSource({ dtype: 'float64', uplo: 'lower', kind: 'strided', ib: 4, kb: 16 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 64, kind: 'strided', warps: 8 }),
    getrfRegisterSource({ dtype: 'float32', rows: 64, cols: 64, kind: 'strided', warps: 8 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 65, kind: 'strided', warps: 8 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 64, kind: 'pointer', warps: 8 }),
    getrfRegisterSource({ dtype: 'float64', rows: 64, cols: 64, kind: 'strided', warps: 4 }),
    potrfRegisterSource({ dtype: 'float64', n: 64, uplo: 'lower', kind: 'strided', warps: 8 }),
    potrfRegisterSource({ dtype: 'float64', n: 64, uplo: 'upper', kind: 'strided', warps: 8 }),
    potrfRegisterSource({ dtype: 'float64', n: 65, uplo: 'lower', kind: 'strided', warps: 8 }),
    potrfRegisterSource({ dtype: 'float32', n: 64, uplo: 'lower', kind: 'pointer', warps: 16 }),
  ];
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  for (const v of variants) assert.match(v.source, new RegExp(`__global__ void __launch_bounds__\\([^)]*\\) ${v.entry}\\(`));
});

const noSpills = (r: PtxasReport): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('register designs compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const sources: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of [5, 16, 32]) {
      const classic = n <= tuningFor('sm_90', 'potrf').classicMax[dtype];
      for (const uplo of ['lower', 'upper'] as const) sources.push(potrfSmallSource({ dtype, n, uplo, kind: 'strided', warps: 4, classic }));
      sources.push(getrfSmallSource({ dtype, rows: n, cols: n, kind: 'pointer', warps: 4 }));
    }
    for (const n of [32]) {
      sources.push(posvSmallSource({ dtype, n, uplo: 'lower', kindA: 'strided', kindB: 'strided', warps: 4 }));
      sources.push(gesvSmallSource({ dtype, n, kindA: 'strided', kindB: 'strided', warps: 4 }));
    }
    sources.push(potrfPanelSource({ dtype, uplo: 'lower', kind: 'strided', ib: 8, kb: 16 }));
  }
  // Representative: each warp design once (potrf, getrf, and the fused solve; gesv, the upper
  // triangle and f32 under MYRIAD_FULL_COMPILE=1).
  const quick = (e: string): boolean => /^(potrf_d_l_n16_|getrf_d_16x16_|posv_d_)/.test(e);
  const failures = compileFailures(await compileForSm90(compileSet(sources, quick)), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('block register designs (getrf, potrf) compile for sm_90 without spills, n = 1..128', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  const sources: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of [1, 33, 64, 65, 100, REGISTER_DESIGN_MAX]) {
      const warps = registerWarps(n);
      sources.push(getrfRegisterSource({ dtype, rows: n, cols: n, kind: n === 65 ? 'pointer' : 'strided', warps }));
      for (const uplo of ['lower', 'upper'] as const) sources.push(potrfRegisterSource({ dtype, n, uplo, kind: 'strided', warps }));
    }
    for (const [rows, cols] of [[128, 33], [33, 128], [127, 64]] as const) {
      sources.push(getrfRegisterSource({ dtype, rows, cols, kind: 'strided', warps: registerWarps(cols) }));
    }
  }
  // No spills and no stack frame: a register array indexed at run time would live in local memory.
  // Representative: a square getrf and the largest potrf upper (the tightest registers).
  const quick = (e: string): boolean => /^(getrf_reg_d_64x64_|potrf_reg_s_u_n128_)/.test(e);
  const failures = compileFailures(await compileForSm90(compileSet(sources, quick)), (r) =>
    noSpills(r) ?? (r.stackFrame !== 0 ? `${r.stackFrame} bytes stack frame (local memory)` : undefined));
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('fallback kernels compile for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const sources: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) {
    sources.push(potrfPanelSource({ dtype, uplo: 'upper', kind: 'pointer', ib: 8, kb: 16 }));
    sources.push(getrfPanelSource({ dtype, kind: 'strided', ib: 16 }));
    sources.push(getrfUpdateSource({ dtype, kind: 'pointer', ib: 16 }));
    for (const variant of ['chol-lower', 'chol-upper', 'lu-N', 'lu-T'] as const) sources.push(substituteSource({ dtype, variant, kindA: 'strided', kindB: 'pointer' }));
  }
  // Representative: the Cholesky panel, the LU trailing update and one substitution.
  const quick = (e: string): boolean => /^(potrf_panel_d_|getrf_update_d_|solve_d_lu_T_)/.test(e);
  const failures = compileFailures(await compileForSm90(compileSet(sources, quick)), () => undefined);
  assert.deepEqual(failures, [], failures.join('\n'));
});
