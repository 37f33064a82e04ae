/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the class kernels of variable-size batched
 * trtri (trtri/generate-vbatched.ts) compiled as C++ for the host
 * (test/helpers/vbatched-trtri-host-harness.cpp) and run as the launcher runs them: the classes
 * within one leaf one leaf launch each with info; the classes above, the scan, then (over the
 * members whose info is 0) every depth's two solves on the CPU (trsm1 on each member's blocks, as
 * the variable-size trsm would run them; its class kernels have their own emulation) and a leaf
 * launch per class; members beyond 512 by the reference (the per-size path's stand-in). Ragged
 * batches of orders 0-600 (0, 1, the class boundaries, odd ld, gaps, unsorted), both dtypes, every
 * uplo and diag; singular members (an exact zero on the diagonal) in several classes, and a member
 * with a NaN. The other triangle (and a unit diagonal) is NaN, so a read of it shows. Checked
 * against the CPU reference (cpuTrtri) on the whole buffer: the triangles within the tolerance, a
 * singular member and everything outside the triangles unchanged bit for bit, info exactly; the
 * NaN member's triangle is not compared (where NaN spreads inside it is the algorithm's), but
 * nothing outside it may change.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { variable, type MatrixView } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { cpuTrtri } from '../../src/cpu/lapack/inverse.js';
import { trsm1 } from '../../src/cpu/trsm.js';
import { memberOffDiagonal, planVbatchedTrtri, trtriVbatchedLeafSource, trtriVbatchedScanSource, vbatchedTrtriLaunch, VSCAN_THREADS, type VbatchedTrtriClass } from '../../src/cuda/kernels/trtri/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { Rng } from '../helpers/random.js';
import { fillTriangle, trsmTolerance } from '../helpers/trsm-data.js';
import { parseHarnessNumber } from '../helpers/recording-device.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/vbatched-trtri-host-harness.cpp');
const SENTINEL = 12345.5;

function hostSource(src: KernelSource): string {
  return src.source.replace(/extern __shared__ unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_shared;');
}

/** Compiles a kernel once; `run` launches it on the buffer and returns the buffer and the infos. */
function harness(dir: string, src: KernelSource, scan: boolean): (input: string, len: number) => { data: number[]; info: number[] } {
  const sub = join(dir, src.entry);
  execFileSync('mkdir', ['-p', sub]);
  writeFileSync(join(sub, 'kernel.cu'), hostSource(src));
  const exe = join(sub, 'h');
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(scan ? ['-DSCAN'] : []), `-I${sub}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
  return (input, len) => {
    const r = spawnSync(exe, { input, maxBuffer: 1 << 28, timeout: 600_000 });
    assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
    const out = r.stdout.toString().trim().split('\n');
    return { data: out.slice(0, len).map(parseHarnessNumber), info: out.slice(len).map(Number) };
  };
}

interface Case { dtype: DType; uplo: Uplo; diag: Diag; seed: number }
const CASES: Case[] = (['float64', 'float32'] as DType[]).flatMap((dtype, d) => (['lower', 'upper'] as const).flatMap((uplo, u) =>
  (['nonunit', 'unit'] as const).map((diag, g): Case => ({ dtype, uplo, diag, seed: 900 + d * 4 + u * 2 + g }))));

/** Orders 0-600: 0, 1, the class boundaries and a few between, shuffled. */
function orders(rng: Rng): number[] {
  const list = [0, 1, 1, 2, 7, 8, 9, 15, 16, 17, 24, 25, 31, 32, 33, 40, 47, 48, 49, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300, 511, 512, 513, 600];
  for (let i = list.length - 1; i > 0; i--) { const j = rng.int(0, i); [list[i], list[j]] = [list[j]!, list[i]!]; }
  return list;
}

for (const c of CASES) {
  test(`vbatched trtri (${c.dtype} ${c.uplo} ${c.diag}) run on the host`, { skip, timeout: 1_800_000 }, () => {
    const rng = new Rng(c.seed);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbtrtri-'));
    try {
      const sizes = orders(rng);
      let next = 2;
      const places = sizes.map((n) => { const ld = Math.max(1, n + rng.int(0, 3)); const off = next; next += ld * n + rng.int(0, 3); return { off, ld }; });
      const len = next + 2;
      const buf = allocate(c.dtype, len).fill(SENTINEL);
      const inTri = new Int32Array(len).fill(-1);   // the member whose triangle holds the element
      sizes.forEach((n, q) => {
        const { off, ld } = places[q]!;
        fillTriangle(rng, buf, off, ld, n, c.uplo, c.diag);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
          if (c.uplo === 'lower' ? i > j || (i === j && c.diag === 'nonunit') : i < j || (i === j && c.diag === 'nonunit')) inTri[off + i + j * ld] = q;
        }
      });
      // Singular members (non-unit: a zero on the diagonal) in the classes 8, 48, 128 and 512, and a NaN in one member.
      const singular = new Map<number, number>();
      for (const n of [7, 40, 100, 511]) {
        const q = sizes.indexOf(n);
        const at = rng.int(0, n - 1);
        buf[places[q]!.off + at + at * places[q]!.ld] = 0;
        singular.set(q, at + 1);
      }
      const nanMember = sizes.indexOf(65);
      buf[places[nanMember]!.off + (c.uplo === 'lower' ? 40 : 20) + (c.uplo === 'lower' ? 20 : 40) * places[nanMember]!.ld] = NaN;
      const views = (data: FloatArray): MatrixView<FloatArray>[] => sizes.map((n, q) => ({ data, offset: places[q]!.off, ld: places[q]!.ld, rows: n, cols: n }));
      const want = buf.slice();
      const wantInfo = new Int32Array(sizes.length);
      cpuTrtri({ uplo: c.uplo, diag: c.diag, a: variable(views(want)), info: wantInfo });
      if (c.diag === 'nonunit') for (const [q, at] of singular) assert.equal(wantInfo[q], at, 'the reference finds the zero');

      const plan = planVbatchedTrtri({ dtype: c.dtype, uplo: c.uplo, diag: c.diag, n: Int32Array.from(sizes), sharedLimit: H100.sharedPerBlockOptin - 1024 }, tuningFor('sm_90', 'trtri'));
      let got: FloatArray = buf.slice();
      const info = new Int32Array(sizes.length).fill(-7);
      const runs = new Map<string, ReturnType<typeof harness>>();
      const launch = (src: KernelSource, scan: boolean, members: ArrayLike<number>, l: { grid: readonly number[]; block: readonly number[]; sharedBytes?: number }, useInfo: boolean): void => {
        let run = runs.get(src.entry);
        if (run === undefined) runs.set(src.entry, (run = harness(dir, src, scan)));
        const input = [
          `${members.length} ${l.grid[0]} ${l.grid[1]} ${l.block[0]} ${l.block[1]} ${l.sharedBytes ?? 0} ${len}`,
          `${useInfo ? 1 : 0} ${c.diag === 'unit' ? 1 : 0} ${sizes.length}`,
          ...Array.from(members, (i) => `${places[i]!.off} ${sizes[i]} ${places[i]!.ld} ${i}`),
          ...[...got].map(String),
        ].join('\n');
        const out = run(`${input}\n`, len);
        const nextBuf = allocate(c.dtype, len);
        for (let e = 0; e < len; e++) nextBuf[e] = out.data[e]!;
        got = nextBuf;
        if (useInfo) for (const i of Array.from(members)) info[i] = out.info[i]!;
      };
      const leafLaunch = (k: VbatchedTrtriClass, members: Int32Array, leaves: number, useInfo: boolean): void =>
        launch(trtriVbatchedLeafSource(k.leaf), false, members, vbatchedTrtriLaunch(k, members.length, leaves), useInfo);

      for (const k of plan.classes) if (k.depths.length === 0) leafLaunch(k, k.members, 1, true);
      const recursive = plan.classes.filter((k) => k.depths.length > 0);
      const scanned = plan.order.subarray(0, plan.recursive);
      launch(trtriVbatchedScanSource({ dtype: c.dtype }), true, scanned, { grid: [Math.ceil(scanned.length / VSCAN_THREADS), 1], block: [VSCAN_THREADS, 1] }, true);
      const live = recursive.map((k) => ({ ...k, members: k.members.filter((i) => info[i] === 0) })).filter((k) => k.members.length > 0);
      for (let d = 0; d < Math.max(0, ...live.map((k) => k.depths.length)); d++) {
        const w = views(got);
        for (const k of live) for (const step of k.depths[d] ?? []) for (const i of k.members) {
          const m = w[i]!;
          const blk = memberOffDiagonal(c.uplo, m.rows, step);
          if (blk === undefined) continue;
          const at = (s: { off: number }): number => m.offset + s.off + s.off * m.ld;
          const bOff = m.offset + blk.b.r0 + blk.b.c0 * m.ld;
          trsm1('left', c.uplo, 'N', c.diag, blk.b.rows, blk.b.cols, 1, got, at(blk.left), m.ld, got, bOff, m.ld);
          trsm1('right', c.uplo, 'N', c.diag, blk.b.rows, blk.b.cols, -1, got, at(blk.right), m.ld, got, bOff, m.ld);
        }
      }
      for (const k of live) leafLaunch(k, k.members, k.leaves, false);
      // Beyond 512: the per-size path (the reference stands in for it here).
      assert.deepEqual(plan.large.map((i) => sizes[i]!).sort((x, y) => x - y), [513, 600]);
      const large = plan.large.map((i) => views(got)[i]!);
      const largeInfo = new Int32Array(large.length);
      cpuTrtri({ uplo: c.uplo, diag: c.diag, a: variable(large), info: largeInfo });
      plan.large.forEach((i, q) => { info[i] = largeInfo[q]!; });

      assert.deepEqual([...info], [...wantInfo], 'info');
      const tol = trsmTolerance(c.dtype, 512);
      for (let e = 0; e < len; e++) {
        const q = inTri[e]!;
        if (q === nanMember) continue;
        const g = got[e]!, w = want[e]!;
        if (Object.is(g, w) || (Number.isNaN(g) && Number.isNaN(w))) continue;
        const inside = q >= 0 && wantInfo[q] === 0;
        if (inside && Number.isFinite(g) && Math.abs(g - w) <= tol * Math.max(1, Math.abs(w))) continue;
        assert.fail(`element ${e} (member ${q}, order ${q >= 0 ? sizes[q] : '-'}) is ${g}, expected ${w}${inside ? '' : ' (must be unchanged)'}`);
      }
      // The NaN member's NaN stays in its triangle (checked above: nothing outside changed); its info is 0.
      assert.equal(info[nanMember], 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
