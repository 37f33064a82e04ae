/**
 * The large-matrix paths without a GPU: the trsm by inverted diagonal blocks (when its plan
 * takes it, leaves exactly the blocks, and the whole plan run on the CPU: the diagonal-block kernel's
 * semantics, trtri, the copy and the GEMMs the launcher issues, against the CPU trsm for all 16
 * variants), the blocked (right-looking) Cholesky's steps run with the CPU's potrf, trsm and syrk
 * against the CPU potrf (both uplo, planted failures: info exact), and the new kernels compiled with
 * nvcc (sm_90, no spills). Opt-in (MYRIAD_HOST_EMULATION=1): the generated kernels run on the host
 * against the emulation used here.
 */
import { potrfDiagonalSource } from '../../src/cuda/kernels/potrf/generate-diagonal.js';
import { potrfFusedPanelSource } from '../../src/cuda/kernels/potrf/generate-fused-panel.js';
import { potrfPanelSolveSource } from '../../src/cuda/kernels/potrf/generate-panel-solve.js';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided, type StridedBatch } from '../../src/core/batch.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuTrtri } from '../../src/cpu/lapack/inverse.js';
import { cpuPotrf, potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { potrfBlocked, potrfBlockedSteps, potrfRecursionSteps, type PotrfRecursionStep } from '../../src/cuda/kernels/potrf/index.js';
import { invertedLeaf, invertsBlocks, planTrsm, trsmCopySource, trsmDiagonalSource, updateRequest, type TrsmProblem } from '../../src/cuda/kernels/trsm/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { potrfCuda } from '../../src/cuda/kernels/potrf/index.js';
import { trsmCuda } from '../../src/cuda/kernels/trsm/index.js';
import { Workspace } from '../../src/cuda/runtime/workspace.js';
import type { Kernel, KernelSource } from '../../src/cuda/runtime/types.js';
import { FakeDevice } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { TRSM_VARIANTS, caseName, compareOutput, fillTriangle, inStrided, layoutLength, oddLayout, randomBuffer, trsmTolerance, type Layout } from '../helpers/trsm-data.js';

const trsmTuning = tuningFor('sm_90', 'trsm');
const problem = (over: Partial<TrsmProblem>): TrsmProblem => ({
  op: 'trsm', dtype: 'float64', side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', m: 1024, n: 1024, count: 1, kind: 'strided', sharedLimit: 226 * 1024, ...over,
});

test('trsm takes the inverted diagonal blocks for large strided trsm only, within the workspace bound; force overrides', () => {
  const from = trsmTuning.invertFrom.float64;
  const nb = trsmTuning.invertBlock;
  assert.equal(invertsBlocks(problem({ m: from }), from, nb, Infinity), true);
  assert.equal(invertsBlocks(problem({ m: from - 1 }), from, nb, Infinity), false, 'below the threshold');
  assert.equal(invertsBlocks(problem({ m: 4, n: from, side: 'left' }), from, nb, Infinity), false, 'the triangle is m on the left');
  assert.equal(invertsBlocks(problem({ m: 4, n: from, side: 'right' }), from, nb, Infinity), true);
  assert.equal(invertsBlocks(problem({ op: 'trmm' }), from, nb, Infinity), false, 'trmm keeps the recursion');
  assert.equal(invertsBlocks(problem({ kind: 'pointer' }), from, nb, Infinity), false, 'list batches keep the recursion');
  assert.equal(invertsBlocks(problem({ count: 4096 }), from, nb, 1 << 30), false, '8 GiB of workspace is too much');
  assert.equal(planTrsm(problem({}), trsmTuning).inverted?.slots, Math.ceil(1024 / nb));
  assert.equal(planTrsm(problem({}), trsmTuning, { force: { invertFrom: Infinity } }).inverted, undefined);
  const forced = planTrsm(problem({ m: 40, n: 3 }), trsmTuning, { force: { invertFrom: 0, invertBlock: 16 } });
  assert.deepEqual(forced.inverted, { nb: 16, slots: 3 });
  assert.equal(forced.shapes.size, 0);
});

test('the inverted plan\'s leaves are exactly the diagonal blocks, in solve order, each before the updates that read it', () => {
  for (const [t, nb] of [[1000, 256], [1025, 256], [2048, 256], [600, 128], [37, 8], [17, 16], [16, 16]] as const) {
    for (const c of TRSM_VARIANTS) {
      const plan = planTrsm(problem({ ...c, m: c.side === 'left' ? t : 5, n: c.side === 'left' ? 5 : t }), trsmTuning, { force: { invertFrom: 0, invertBlock: nb } });
      const leaves = plan.steps.filter((s) => s.kind === 'leaf').map((s) => (s.kind === 'leaf' ? s.span : undefined)!);
      assert.equal(leaves.length, Math.ceil(t / nb), `${caseName(c)} t=${t}`);
      for (const s of leaves) {
        assert.equal(s.off % nb, 0, 'a leaf starts a block');
        assert.equal(s.size, Math.min(nb, t - s.off), 'and is the whole block');
      }
      assert.deepEqual(new Set(leaves.map((s) => s.off)).size, leaves.length);
    }
  }
});

/** What trsm_diagonal writes (generate-blocks.ts): the slots of every matrix, the other triangle 0, unit diagonal 1, identity padding. */
function diagonalBlocks(a: Float64Array, la: Layout, count: number, t: number, nb: number, uplo: Uplo, diag: Diag): Float64Array {
  const slots = Math.ceil(t / nb);
  const w = new Float64Array(count * slots * nb * nb);
  for (let m = 0; m < count; m++) for (let j = 0; j < slots; j++) {
    const off = j * nb, s = Math.min(nb, t - off);
    for (let c = 0; c < nb; c++) for (let r = 0; r < nb; r++) {
      const inside = uplo === 'lower' ? r > c : r < c;
      const at = la.offset + m * la.stride + (off + r) + (off + c) * la.ld;
      w[((m * slots + j) * nb + c) * nb + r] = r >= s || c >= s ? (r === c ? 1 : 0) : r === c ? (diag === 'unit' ? 1 : a[at]!) : inside ? a[at]! : 0;
    }
  }
  return w;
}

test('the inverted trsm plan, run on the CPU as the launcher issues it, equals the CPU trsm (16 variants, odd layouts, alpha)', () => {
  const rng = new Rng(13);
  for (const c of TRSM_VARIANTS) for (const [t, nvec, count, nb] of [[37, 5, 3, 8], [64, 9, 2, 16], [20, 33, 2, 32], [50, 1, 1, 16]] as const) {
    const [m, n] = c.side === 'left' ? [t, nvec] : [nvec, t];
    const la = oddLayout(t, t, count), lb = oddLayout(m, n, count);
    const A = randomBuffer(rng, 'float64', layoutLength(la)) as Float64Array;
    for (let i = 0; i < count; i++) fillTriangle(rng, A, la.offset + i * la.stride, la.ld, t, c.uplo, c.diag);
    const B = randomBuffer(rng, 'float64', layoutLength(lb)) as Float64Array;
    const inB = inStrided(lb);
    for (let e = 0; e < B.length; e++) if (!inB(e)) B[e] = NaN;
    const alpha = t % 2 === 1 ? -1.5 : 1;
    const a = strided(A, { rows: t, cols: t, count, ld: la.ld, stride: la.stride, offset: la.offset });
    const want = B.slice();
    cpuTrsm({ ...c, alpha, a, b: strided(want, { rows: m, cols: n, count, ld: lb.ld, stride: lb.stride, offset: lb.offset }) });

    const got = B.slice();
    const b = strided(got, { rows: m, cols: n, count, ld: lb.ld, stride: lb.stride, offset: lb.offset });
    const r = { ...c, alpha, a, b };
    const plan = planTrsm(problem({ ...c, m, n, count }), trsmTuning, { force: { invertFrom: 0, invertBlock: nb } });
    const inv = plan.inverted!;
    const w = diagonalBlocks(A, la, count, t, nb, c.uplo, c.diag);
    cpuTrtri({ uplo: c.uplo, diag: 'nonunit', a: strided(w, { rows: nb, cols: nb, ld: nb, stride: nb * nb, count: count * inv.slots }), info: new Int32Array(count * inv.slots) });
    const x = new Float64Array(count * Math.min(nb, t) * nvec).fill(NaN);
    for (const step of plan.steps) {
      if (step.kind === 'update') {
        cpuGemm(updateRequest('trsm', r, a, b, m, n, step) as Parameters<typeof cpuGemm>[0]);
        continue;
      }
      const leaf = invertedLeaf(r, b, w, x, inv, step, m, n);
      const bj: StridedBatch<Float64Array> = leaf.block;
      for (let q = 0; q < count; q++) for (let j = 0; j < bj.cols; j++) for (let i = 0; i < bj.rows; i++)
        x[q * bj.rows * bj.cols + i + j * bj.rows] = got[bj.offset + q * bj.stride + i + j * bj.ld]!;   // the copy kernel
      cpuGemm(leaf.gemm as Parameters<typeof cpuGemm>[0]);
    }
    compareOutput(got, want, inB, trsmTolerance('float64', t), `${caseName(c)} t=${t} nvec=${nvec} count=${count} nb=${nb}`);
  }
});

test('the blocked Cholesky\'s steps: panels in order, the diagonal block by the recursion, one update per panel', () => {
  const tuning = tuningFor('sm_90', 'potrf').blocked;
  assert.equal(potrfBlocked(tuning.minN, tuning), true);
  assert.equal(potrfBlocked(tuning.minN - 1, tuning), false);
  assert.equal(potrfBlocked(4096, tuning, false), false, 'force keeps the recursion');
  assert.equal(potrfBlocked(600, tuning, true), true);
  const steps = potrfBlockedSteps(1000, 256);
  const updates = steps.filter((s) => s.kind === 'update');
  assert.deepEqual(updates.filter((s) => s.kind === 'update' && s.top === 256).map((s) => s.kind === 'update' && [s.off, s.rest]),
    [[0, 744], [256, 488], [512, 232]], 'the panels\' updates');
  assert.ok(updates.every((s) => s.kind === 'update' && s.top <= 256), 'every trsm within a panel');
  let next = 0;
  for (const s of steps) if (s.kind === 'leaf') { assert.equal(s.off, next); next += s.size; }
  assert.equal(next, 1000);
  assert.deepEqual(potrfBlockedSteps(100, 256), potrfRecursionSteps(100));
  assert.throws(() => potrfBlockedSteps(100, 0), /panel/);
});

/** Runs steps of the large Cholesky with the CPU routines, as potrf/launch.ts issues them (info by the first failure). */
function runSteps(steps: readonly PotrfRecursionStep[], A: Float64Array, n: number, ld: number, stride: number, count: number, uplo: Uplo): Int32Array {
  const info = new Int32Array(count);
  const blk = (r0: number, c0: number, rows: number, cols: number): StridedBatch<Float64Array> =>
    strided(A, { rows, cols, ld, stride, count, offset: r0 + c0 * ld });
  for (const s of steps) {
    if (s.kind === 'leaf') {
      for (let q = 0; q < count; q++) {
        const bad = potrfMatrix(A, q * stride + s.off + s.off * ld, ld, s.size, uplo === 'upper');
        if (info[q] === 0 && bad > 0) info[q] = s.off + bad;
      }
      continue;
    }
    const { off, top, rest } = s;
    if (uplo === 'lower') {
      cpuTrsm({ side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: 1, a: blk(off, off, top, top), b: blk(off + top, off, rest, top) });
      cpuSyrk({ uplo: 'lower', trans: 'N', alpha: -1, a: blk(off + top, off, rest, top), beta: 1, c: blk(off + top, off + top, rest, rest) });
    } else {
      cpuTrsm({ side: 'left', uplo: 'upper', transA: 'T', diag: 'nonunit', alpha: 1, a: blk(off, off, top, top), b: blk(off, off + top, top, rest) });
      cpuSyrk({ uplo: 'upper', trans: 'T', alpha: -1, a: blk(off, off + top, top, rest), beta: 1, c: blk(off + top, off + top, rest, rest) });
    }
  }
  return info;
}

test('the blocked Cholesky run with the CPU\'s potrf, trsm and syrk equals the CPU potrf; planted failures give info exactly', () => {
  const rng = new Rng(5);
  for (const uplo of ['lower', 'upper'] as const) for (const [n, panel, leaf] of [[70, 32, 16], [97, 32, 8], [64, 64, 16], [45, 16, 16]] as const) {
    const count = 3, ld = n + 3, stride = ld * n + 7;
    const A = new Float64Array(stride * count);
    for (let q = 0; q < count; q++) {
      // SPD: M M^T / n + I, with matrix 1 made indefinite at column plant (1-based).
      const M = Array.from({ length: n * n }, () => rng.uniform());
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        let v = i === j ? 1 : 0;
        for (let k = 0; k < n; k++) v += (M[i + k * n]! * M[j + k * n]!) / n;
        A[q * stride + i + j * ld] = v;
      }
    }
    const plant = Math.min(n, panel + 5);
    A[1 * stride + (plant - 1) * (ld + 1)] = -100;
    const want = A.slice();
    const wantInfo = new Int32Array(count);
    cpuPotrf({ uplo, a: strided(want, { rows: n, count, ld, stride }), info: wantInfo });
    const got = A.slice();
    const info = runSteps(potrfBlockedSteps(n, panel, leaf), got, n, ld, stride, count, uplo);
    assert.deepEqual([...info], [...wantInfo], `${uplo} n=${n}: info`);
    assert.equal(info[1], plant, 'the planted column');
    for (const q of [0, 2]) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      if (uplo === 'lower' ? i < j : i > j) continue;
      const e = q * stride + i + j * ld;
      if (!(Math.abs(got[e]! - want[e]!) <= 1e-12 * n)) assert.fail(`${uplo} n=${n} panel=${panel} matrix ${q} (${i}, ${j}): ${got[e]} vs ${want[e]}`);
    }
  }
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('the inverted trsm\'s kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  const sources = [
    trsmDiagonalSource({ dtype: 'float64', uplo: 'lower', diag: 'nonunit' }),
    trsmDiagonalSource({ dtype: 'float32', uplo: 'upper', diag: 'unit' }),
    trsmCopySource({ dtype: 'float64' }),
  ];
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('the large Cholesky\'s panel kernels (diagonal, panel solve, the two fused) compile for sm_90 without spills at the table\'s widths', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  // 64 and 96 (float64), 96 and 128 (float32); float64 128 is not in the table (its diagonal kernel
  // spills). The two-launch panel solve of float32 'upper' spills 8 bytes at 96 and 128 (40
  // registers): the fused kernel, the default for fewer matrices than
  // SMs, does not, and is the one checked there.
  const params = [
    { dtype: 'float64', uplo: 'lower', nb: 64 }, { dtype: 'float64', uplo: 'upper', nb: 96 },
    { dtype: 'float32', uplo: 'lower', nb: 96 }, { dtype: 'float32', uplo: 'upper', nb: 128 },
  ] as const;
  const sources = params.flatMap((p) => [potrfDiagonalSource(p), potrfFusedPanelSource(p), ...(p.dtype === 'float32' && p.uplo === 'upper' ? [] : [potrfPanelSolveSource(p)])]);
  assert.equal(new Set(sources.map((x) => x.entry)).size, sources.length, 'distinct names');
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('the diagonal-block and copy kernels are pure functions of their parameters', () => {
  const names = new Set<string>();
  for (const dtype of ['float64', 'float32'] as const) for (const uplo of ['lower', 'upper'] as const) for (const diag of ['unit', 'nonunit'] as const) {
    const s = trsmDiagonalSource({ dtype, uplo, diag });
    assert.deepEqual(trsmDiagonalSource({ dtype, uplo, diag }), s);
    names.add(s.entry);
  }
  assert.equal(names.size, 8, 'every parameter changes the kernel');
  assert.notEqual(trsmCopySource({ dtype: 'float32' }).source, trsmCopySource({ dtype: 'float64' }).source);
});

const hostSkip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

test('the diagonal-block and copy kernels run on the host write what the emulation above writes', { skip: hostSkip, timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-blocks-'));
  const rng = new Rng(3);
  try {
    for (const uplo of ['lower', 'upper'] as const) for (const diag of ['nonunit', 'unit'] as const) {
      const src = trsmDiagonalSource({ dtype: 'float64', uplo, diag });
      const copy = trsmCopySource({ dtype: 'float64' });
      writeFileSync(join(dir, 'kernel.cu'), `${src.source}\n${copy.source.replace(/typedef double real;\n/, '').replace(/static __device__ __forceinline__ real fmaReal[^\n]*\n/, '')}`);
      writeFileSync(join(dir, 'main.cpp'), `#include "${resolve('test/helpers/cuda-host-shim.h')}"
#include "kernel.cu"
int main() {
  long long count, t, nb, slots, off, stride, ld, len, gx;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &t, &nb, &slots, &off, &stride, &ld, &len, &gx) != 9) return 2;
  std::vector<double> A(len), W(count * slots * nb * nb, -7), X(count * 3 * t, -7);
  for (auto& v : A) { char s[64]; scanf("%63s", s); v = s[0] == 'n' ? NAN : atof(s); }
  run_grid(gx, 1, 32, 1, 1, 0, [&] { ${src.entry}(A.data(), off, stride, (int)ld, W.data(), (int)count, (int)t, (int)nb, (int)slots); });
  run_grid(gx, 1, 32, 1, 1, 0, [&] { ${copy.entry}(A.data(), off + 1, stride, (int)ld, X.data(), (int)count, 3, (int)t); });
  for (auto v : W) printf("%.17g\\n", v);
  for (auto v : X) printf("%.17g\\n", v);
}
`);
      execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-I${dir}`, join(dir, 'main.cpp'), '-o', join(dir, 'h')]);
      for (const [t, nb, count, gx] of [[37, 8, 2, 3], [16, 16, 3, 1], [5, 8, 1, 2]] as const) {
        const la = oddLayout(t, t, count);
        const A = randomBuffer(rng, 'float64', layoutLength(la)) as Float64Array;
        for (let i = 0; i < count; i++) fillTriangle(rng, A, la.offset + i * la.stride, la.ld, t, uplo, diag);
        const slots = Math.ceil(t / nb);
        const input = `${[count, t, nb, slots, la.offset, la.stride, la.ld, A.length, gx].join(' ')}\n${[...A].map((v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n')}\n`;
        const out = execFileSync(join(dir, 'h'), { input, maxBuffer: 1 << 26 }).toString().trim().split('\n').map(Number);
        const want = diagonalBlocks(A, la, count, t, nb, uplo, diag);
        assert.deepEqual(out.slice(0, want.length), [...want], `${uplo}/${diag} t=${t} nb=${nb}: the diagonal blocks`);
        // The copy: rows 1..3 of every matrix (offset + 1), t columns, compact.
        const x = out.slice(want.length);
        for (let q = 0; q < count; q++) for (let j = 0; j < t; j++) for (let i = 0; i < 3; i++) {
          const v = A[la.offset + 1 + q * la.stride + i + j * la.ld]!;
          const g = x[q * 3 * t + i + j * 3]!;
          assert.ok(g === v || (Number.isNaN(g) && Number.isNaN(v)), `copy (${q}, ${i}, ${j})`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A fake device whose kernels launch nothing: the launchers' host side (plans, workspace, launch counts) without a GPU. */
class LaunchCounter extends FakeDevice {
  launches = 0;
  readonly names = new Map<string, number>();
  override kernel(src?: KernelSource): Kernel {
    const entry = src!.entry;
    return { name: entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024,
      launch: () => { this.launches++; this.names.set(entry, (this.names.get(entry) ?? 0) + 1); } };
  }
}

test('the large Cholesky and trsm on a device: scratch from the workspace, no wait or allocation once warm, fewer launches blocked', () => {
  const log: string[] = [];
  const dev = new LaunchCounter(0, log);
  const n = 2048;
  const a = strided(dev.alloc('float64', n * n), { rows: n, count: 1 });
  const info = dev.alloc('int32', 1);
  const count = (force?: Parameters<typeof potrfCuda>[2]): number => {
    dev.launches = 0;
    potrfCuda(dev, { uplo: 'lower', a, info }, force);
    return dev.launches;
  };
  const old = count({ force: { recursive: true, blocked: false, variant: 'panel', trsm: { invertFrom: Infinity } } });
  const blocked = count({ force: { recursive: true, blocked: true, diagonal: 0, panel: 256 } });
  assert.ok(blocked < old / 1.5, `blocked ${blocked} launches against the old recursion's ${old}`);
  // The default: panels of 96 by the fused diagonal kernel, the panel (diagonal block and the solve
  // below it) in one launch but the last (no panel below: the diagonal kernel alone), then the updates.
  dev.names.clear();
  const fused = count();
  const panels = Math.ceil(n / 96);
  assert.equal(dev.names.get('potrf_fpanel_d_l_nb96'), panels - 1, 'one fused panel kernel a panel');
  assert.equal(dev.names.get('potrf_diag_d_l_nb96'), 1, 'the last panel: the diagonal kernel alone');
  assert.ok(!dev.names.has('potrf_psolve_d_l_nb96'), 'no separate panel solve');
  dev.names.clear();
  const twoLaunch = count({ force: { fusedPanel: false } });
  assert.equal(dev.names.get('potrf_diag_d_l_nb96'), panels, 'two launches a panel: one diagonal kernel a panel');
  assert.equal(dev.names.get('potrf_psolve_d_l_nb96'), panels - 1, 'two launches a panel: a panel solve below each but the last');
  assert.equal(twoLaunch - fused, panels - 1, 'the fused panel saves a launch a panel');
  assert.ok(fused < blocked / 2, `fused ${fused} launches against the blocked recursion's ${blocked}`);
  count({ force: { recursive: true, blocked: true, diagonal: 0, panel: 256, trsm: { invertFrom: 256 } } });
  assert.ok([...dev.names.keys()].some((k) => k.startsWith('trsm_diagonal')), 'the inverted panel trsm ran');
  // Warm: repeating every path neither waits nor allocates.
  const live = dev.live.size, grows = Workspace.of(dev).grows;
  log.length = 0;
  count();
  count({ force: { recursive: true, blocked: true, diagonal: 0, panel: 512, trsm: { invertFrom: 0 } } });
  count({ force: { recursive: true, blocked: true, diagonal: 64 } });
  count({ force: { recursive: true, blocked: false, trsm: { invertFrom: 512 } } });
  trsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'T', diag: 'unit', alpha: 2, a, b: strided(dev.alloc('float64', n * 3), { rows: n, cols: 3, count: 1 }) });
  assert.ok(Workspace.of(dev).grows >= grows);
  const grew = Workspace.of(dev).grows - grows;
  assert.equal(log.filter((e) => e === 'sync0').length, grew, 'a wait only where the workspace grew');
  assert.equal(dev.live.size, live + 1, 'no allocation but the B above (a grown workspace replaces the old one)');
});
