/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the class kernel of variable-size batched
 * syrk (syrk/generate-vbatched.ts) compiled as C++ for the host (test/helpers/vbatched-syrk-host-harness.cpp)
 * and run as the launcher runs it: every class's leaf steps, each one launch of the kernel (shape
 * from vbatchedSyrkLaunch, the members' table rows as syrkMemberTables writes them), then every
 * class's off-diagonal blocks (memberOffdiagOf) by the CPU GEMM, as the one variable-size GEMM would
 * run them; the members beyond the last class by the reference (the per-size path, tested on its
 * own). The ragged batches of test/helpers/vbatched-syrk-cases.ts: orders 0-600 on both sides of
 * every class boundary, k from 0 to beyond two chunks, shuffled, ragged (odd) ld and gaps; both
 * dtypes, uplo and trans; beta 0 with the written triangles NaN (C must not be read), alpha 0 (A
 * never read), and one case with forced leaves of 16 and chunks of 8 (more cuts, several chunks).
 * The members' other triangles are NaN and the gaps a sentinel. Checked against the CPU reference
 * (cpuSyrk on float64 copies of the inputs) on the whole buffer: the written triangles within
 * syrk's tolerance, every other element unchanged bit for bit.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { variable, type MatrixView, type VariableBatch } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { memberOffdiagOf, offdiagTransposes, planVbatchedSyrk, syrkVbatchedLeafSource, vbatchedSyrkLaunch, type BlockCut, type VbatchedSyrkForce } from '../../src/cuda/kernels/syrk/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput } from '../helpers/trsm-data.js';
import { caseLabel, SYRK_VB_CASES, syrkVbData, syrkVbLayout, type SyrkVbCase } from '../helpers/vbatched-syrk-cases.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/vbatched-syrk-host-harness.cpp');

/** The source as the host compiles it: dynamic shared memory from the harness's buffer. */
function hostSource(src: KernelSource): string {
  return src.source.replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_shared;');
}

/** Compiles a kernel once per entry; `run(input, buffer)` launches it on the buffer (float64 values) and returns it. */
function harness(dir: string): (src: KernelSource) => (input: string, buffer: Float64Array) => Float64Array {
  const built = new Map<string, string>();
  return (src) => {
    let exe = built.get(src.entry);
    if (exe === undefined) {
      const sub = join(dir, src.entry);
      execFileSync('mkdir', ['-p', sub]);
      writeFileSync(join(sub, 'kernel.cu'), hostSource(src));
      exe = join(sub, 'h');
      execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${sub}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
      built.set(src.entry, exe);
    }
    const run = exe;
    return (input, buffer) => {
      const inFile = join(dir, 'in.bin'), outFile = join(dir, 'out.bin');
      writeFileSync(inFile, new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
      const r = spawnSync(run, [inFile, outFile], { input, maxBuffer: 1 << 20, timeout: 600_000 });
      assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      const bytes = readFileSync(outFile);
      return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    };
  };
}

interface EmulationCase { readonly c: SyrkVbCase; readonly force: VbatchedSyrkForce }
const CASES: EmulationCase[] = [
  ...SYRK_VB_CASES.map((c) => ({ c, force: {} })),
  { c: { dtype: 'float64', uplo: 'lower', trans: 'T', alpha: -1.5, beta: 0.5, seed: 4200 }, force: { leafMax: 16, chunk: 8 } },
];

for (const { c, force } of CASES) {
  test(`vbatched syrk ${caseLabel(c)}${force.leafMax ? `, leaves of ${force.leafMax}, chunks of ${force.chunk}` : ''}: orders 0-600 run on the host`, { skip, timeout: 1_800_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vbsyrk-'));
    try {
      const l = syrkVbLayout(c);
      const data = syrkVbData(c, l);
      // One buffer: A's members, then C's (C's offsets shifted by A's length).
      const shift = l.a.length, len = l.a.length + l.c.length;
      const buf = new Float64Array(len);
      buf.set(data.a, 0);
      buf.set(data.c, shift);
      const views = (x: FloatArray): { a: MatrixView<FloatArray>[]; c: MatrixView<FloatArray>[] } => ({
        a: l.a.places.map((p) => ({ data: x, offset: p.offset, ld: p.ld, rows: p.rows, cols: p.cols })),
        c: l.c.places.map((p) => ({ data: x, offset: shift + p.offset, ld: p.ld, rows: p.rows, cols: p.cols })),
      });
      const want = buf.slice();
      const w = views(want);
      cpuSyrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: variable(w.a), c: variable(w.c) });

      const n = Int32Array.from(l.shapes, (s) => s.n);
      const k = Int32Array.from(l.shapes, (s) => (c.alpha === 0 ? 0 : s.k));
      const plan = planVbatchedSyrk({ dtype: c.dtype, uplo: c.uplo, trans: c.trans, beta: c.beta, members: { n, k }, sharedLimit: H100.sharedPerBlockOptin - 1024 }, tuningFor('sm_90', 'syrk'), force);
      assert.deepEqual(plan.large.map((i) => l.shapes[i]!.n).sort((x, y) => x - y), [513, 600]);
      const build = harness(dir);
      let got: Float64Array = buf.slice();
      for (const launch of plan.launches) for (const step of launch.steps) {
        if (step.kind !== 'leaf') continue;
        const { params, shape } = launch.leaves.get(step.size)!;
        const run = build(syrkVbatchedLeafSource(params));
        const cfg = vbatchedSyrkLaunch(shape, launch.members.length, step.blocks);
        const input = [
          `${launch.members.length} ${cfg.grid[0]} ${cfg.grid[1]} ${cfg.block[0]} ${cfg.block[1]} ${cfg.block[2]} ${cfg.sharedBytes ?? 0} ${len}`,
          `${c.alpha} ${c.beta} ${step.off} ${step.size}`,
          ...Array.from(launch.members, (i) => `${l.a.places[i]!.offset} ${shift + l.c.places[i]!.offset} ${n[i]} ${k[i]} ${l.a.places[i]!.ld} ${l.c.places[i]!.ld}`),
        ].join('\n');
        got = run(`${input}\n`, got);
      }
      // The off-diagonal blocks of every class: one GEMM (here the CPU's), as the launcher runs it.
      const g = views(got);
      const cut = (x: MatrixView<FloatArray>, b: BlockCut): MatrixView<FloatArray> => ({ data: x.data, offset: x.offset + b.r0 + b.c0 * x.ld, ld: x.ld, rows: b.rows, cols: b.cols });
      const blocks: { i: number; u: NonNullable<ReturnType<typeof memberOffdiagOf>> }[] = [];
      for (const launch of plan.launches) for (const step of launch.steps) {
        if (step.kind !== 'offdiag') continue;
        for (const i of launch.members) { const u = memberOffdiagOf(c.trans, n[i]!, k[i]!, step); if (u !== undefined) blocks.push({ i, u }); }
      }
      const vb = (x: MatrixView<FloatArray>[]): VariableBatch<FloatArray> => ({ kind: 'variable', order: 'col', matrices: x });
      if (blocks.length > 0) {
        cpuGemm({ ...offdiagTransposes(c.trans), alpha: c.alpha, beta: c.beta, a: vb(blocks.map(({ i, u }) => cut(g.a[i]!, u.a))), b: vb(blocks.map(({ i, u }) => cut(g.a[i]!, u.b))), c: vb(blocks.map(({ i, u }) => cut(g.c[i]!, u.c))) });
      }
      // The members beyond the last class: the per-size path (here the reference).
      cpuSyrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: variable(plan.large.map((i) => g.a[i]!)), c: variable(plan.large.map((i) => g.c[i]!)) });
      // float32: the kernel's sums in float32 on the same (float32) inputs, against the reference's in float64.
      compareOutput(got, want, (e) => e >= shift && l.written[e - shift] === 1, syrkTolerance(c.dtype, l.kMax), caseLabel(c));
      // Every member's written triangle was written (the NaN poison is gone where beta = 0).
      if (c.beta === 0) for (let e = shift; e < len; e++) if (l.written[e - shift] === 1) assert.ok(!Number.isNaN(got[e]!), `element ${e - shift} of C not written`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
