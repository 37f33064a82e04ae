/**
 * The lauum family without a GPU: the generator pure (every parameter changes the source or the
 * name), the recursion's list of launches, the leaf's launch shapes, and the whole plan run on the
 * CPU (the leaf emulated as generate-leaf.ts computes it, the SYRK and TRMM steps as the very
 * requests the launcher passes to the syrk and trsm families, run by the CPU references) against
 * the CPU reference: both uplo, deep recursions (tiny forced leaves), odd layouts, list batches,
 * the other triangle untouched; the register leaf's generator, the table's choice between the
 * leaves and their shapes; where nvcc is installed, the leaf kernels compile for sm_90 without
 * spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { batchCount, list, matrixAt, strided, type ListBatch, type StridedBatch } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuLauum } from '../../src/cpu/lapack/index.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import {
  lauumLeafShape, lauumLeafSource, lauumRegisterLeafError, lauumRegisterLeafSource, lauumRegisterShape, lauumSteps, planLauum, syrkStep, trmmStep, type LauumRegisterLeafParams,
} from '../../src/cuda/kernels/lauum/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { inTriangle, syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const tuning = tuningFor('sm_90', 'lauum');
const LIMIT = 227 * 1024 - 1024;

test('the lauum leaf generator is pure and every parameter changes the kernel', () => {
  const base = { dtype: 'float64', uplo: 'lower', kind: 'strided' } as const;
  assert.equal(lauumLeafSource(base).source, lauumLeafSource({ ...base }).source);
  const variants: KernelSource[] = [
    lauumLeafSource(base), lauumLeafSource({ ...base, dtype: 'float32' }), lauumLeafSource({ ...base, uplo: 'upper' }), lauumLeafSource({ ...base, kind: 'pointer' }),
  ];
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  for (const v of variants) assert.match(v.source, new RegExp(`__global__ void __launch_bounds__\\([^)]*\\) ${v.entry}\\(`));
});

test('lauum recursion: lauum of the first half, SYRK and TRMM, lauum of the second; every diagonal element in one leaf', () => {
  const s = (off: number, size: number) => ({ off, size });
  assert.deepEqual(lauumSteps(32, 32, 16), [{ kind: 'leaf', span: s(0, 32) }]);
  assert.deepEqual(lauumSteps(0, 32, 16), []);
  assert.deepEqual(lauumSteps(64, 32, 16), [
    { kind: 'leaf', span: s(0, 32) }, { kind: 'syrk', lo: s(0, 32), hi: s(32, 32) }, { kind: 'trmm', lo: s(0, 32), hi: s(32, 32) }, { kind: 'leaf', span: s(32, 32) },
  ]);
  for (const [n, leaf] of [[512, 32], [300, 32], [47, 4], [100, 1]] as const) {
    const steps = lauumSteps(n, leaf, 16);
    const leaves = steps.flatMap((x) => (x.kind === 'leaf' ? [x.span] : []));
    assert.deepEqual(leaves.flatMap((sp) => Array.from({ length: sp.size }, (_, i) => sp.off + i)), Array.from({ length: n }, (_, i) => i));
    assert.ok(leaves.every((sp) => sp.size <= leaf));
    assert.equal(steps.length, 3 * leaves.length - 2);
  }
});

test('lauum leaf shapes fit the block and the shared memory', () => {
  for (const dtype of ['float64', 'float32'] as const) for (const t of [1, 2, 7, 16, 32, 64]) for (const count of [1, 5, 1000]) {
    const sh = lauumLeafShape(dtype, t, count, tuning, LIMIT);
    assert.ok(sh.threads * sh.matrices <= 256 && sh.threads % 32 === 0 && sh.matrices >= 1 && sh.matrices <= count);
    assert.ok(sh.sharedBytes <= LIMIT && sh.lds % 2 === 1 && sh.lds >= t);
  }
  assert.throws(() => lauumLeafShape('float64', 128, 1, tuning, 48 * 1024), /does not fit/);
  const plan = planLauum({ dtype: 'float32', uplo: 'upper', n: 300, count: 3, kind: 'pointer', sharedLimit: LIMIT }, tuning);
  for (const st of plan.steps) if (st.kind === 'leaf') assert.ok(plan.shapes.has(st.span.size));
});

test('the register leaf generator is pure, every parameter changes the kernel, and bad shapes are refused', () => {
  const base: LauumRegisterLeafParams = { dtype: 'float64', uplo: 'lower', kind: 'strided', tile: 32, reg: 4 };
  assert.equal(lauumRegisterLeafSource(base).source, lauumRegisterLeafSource({ ...base }).source);
  const variants = [
    base, { ...base, dtype: 'float32' }, { ...base, uplo: 'upper' }, { ...base, kind: 'pointer' }, { ...base, tile: 64 }, { ...base, reg: 2 }, { ...base, pipelined: true }, { ...base, packed: true },
  ].map((p) => lauumRegisterLeafSource(p as LauumRegisterLeafParams));
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  assert.equal(lauumRegisterLeafSource({ ...base, pipelined: false }).source, variants[0]!.source, 'pipelined false is the plain form');
  // Upper stages U^T (the lower form) and stores the result transposed.
  assert.match(variants[2]!.source, /if \(i <= j\) s\[j \+ column\(i, t, lds\)\] = a\[i \+ \(long long\)j \* ldA\]/);
  assert.match(variants[2]!.source, /a\[j \+ \(long long\)i \* ldA\] = acc\[u\]\[w\]/);
  // The pipelined form copies by cp.async into two buffers a slot.
  assert.match(variants[6]!.source, /copyAsync\(&s\[i \+ column\(j, t, lds\)\], &a\[i \+ \(long long\)j \* ldA\]\)/);
  // The packed triangle: column c after the t - k elements of every column k < c.
  assert.match(variants[7]!.source, /return c \* \(2 \* t - c - 1\) \/ 2;/);
  assert.match(variants[0]!.source, /return c \* lds;/);
  assert.ok(!variants[0]!.source.includes('copyAsync'));
  for (const bad of [{ tile: 128 }, { tile: 24 }, { reg: 3 }, { reg: 16 }, { tile: 4, reg: 8 }]) {
    assert.ok(lauumRegisterLeafError({ ...base, ...bad }) !== undefined, JSON.stringify(bad));
    assert.throws(() => lauumRegisterLeafSource({ ...base, ...bad }), /invalid lauum register leaf/);
  }
});

test('the table\'s leaves: the register leaf to 64 (packed; pipelined from 17, float32 33), the shared-memory one where forced; shapes fit', () => {
  const leafOf = (dtype: 'float64' | 'float32', n: number, force = {}) => {
    const plan = planLauum({ dtype, uplo: 'lower', n, count: 1000, kind: 'strided', sharedLimit: LIMIT }, tuning, { force });
    const leaves = plan.steps.flatMap((st) => (st.kind === 'leaf' ? [st.span.size] : []));
    return leaves.map((size) => { const p = plan.registerLeaves.get(size); return p === undefined ? `shared ${size}` : `t${p.tile} r${p.reg}${p.pipelined === true ? ' p' : ''}${p.packed === true ? ' k' : ''}`; });
  };
  assert.deepEqual(leafOf('float64', 16), ['t16 r4 k']);
  assert.deepEqual(leafOf('float64', 32), ['t32 r8 p k']);
  assert.deepEqual(leafOf('float64', 64), ['t64 r8 p k']);
  assert.deepEqual(leafOf('float32', 32), ['t32 r4 k']);
  assert.deepEqual(leafOf('float32', 48), ['t64 r8 p k']);
  assert.deepEqual(leafOf('float64', 100), ['t64 r8 p k', 't64 r8 p k'], 'a split at 48: two leaves of 48 and 52');
  assert.deepEqual(leafOf('float64', 3), ['t4 r4 k']);
  assert.deepEqual(leafOf('float64', 32, { leaf: 'shared' }), ['shared 32']);
  assert.deepEqual(leafOf('float32', 32, { leaf: 'register', reg: 2, pipelined: true, packed: false }), ['t32 r2 p']);
  assert.deepEqual(leafOf('float64', 64, { leafMax: 32 }), ['t32 r8 p k', 't32 r8 p k']);
  for (const dtype of ['float64', 'float32'] as const) for (const [tile, reg] of [[4, 4], [16, 2], [32, 4], [64, 4], [64, 8]] as const) for (const pipelined of [false, true]) for (const packed of [false, true]) {
    for (const t of [1, tile / 2 + 1, tile]) for (const count of [1, 7, 1000]) {
      const p: LauumRegisterLeafParams = { dtype, uplo: 'upper', kind: 'strided', tile, reg, pipelined, packed };
      const sh = lauumRegisterShape(p, t, count, tuning, LIMIT);
      assert.ok(sh.threads === (tile / reg) ** 2 && sh.matrices >= 1 && sh.matrices <= count && sh.threads * sh.matrices <= 1024);
      assert.ok(sh.sharedBytes <= LIMIT && sh.lds % 2 === 1 && sh.lds >= t);
      assert.equal(sh.sharedBytes, sh.matrices * (pipelined ? 2 : 1) * (packed ? (t * (t + 1)) / 2 : t * sh.lds) * (dtype === 'float64' ? 8 : 4));
    }
  }
  assert.throws(() => lauumRegisterShape({ dtype: 'float64', uplo: 'lower', kind: 'strided', tile: 64, reg: 1 }, 64, 1, tuning, LIMIT), /threads a matrix/);
});

type HostBatch = StridedBatch<FloatArray> | ListBatch<FloatArray>;

/** The leaf kernel's arithmetic (generate-leaf.ts) on one t x t diagonal block, from a copy. */
function emulateLeaf(uplo: Uplo, t: number, A: FloatArray, off: number, ld: number): void {
  const s = A.slice();
  for (let j = 0; j < t; j++) for (let i = 0; i < t; i++) {
    if (uplo === 'lower' ? i < j : i > j) continue;
    let sum = 0;
    if (uplo === 'lower') for (let l = i; l < t; l++) sum += s[off + l + i * ld]! * s[off + l + j * ld]!;
    else for (let l = j; l < t; l++) sum += s[off + i + l * ld]! * s[off + j + l * ld]!;
    A[off + i + j * ld] = sum;
  }
}

/** The launcher's plan (plan.ts + blocks.ts) run on host batches. */
function runPlanOnCpu(uplo: Uplo, a: HostBatch, leafMax: number): void {
  const count = batchCount(a);
  const plan = planLauum({ dtype: 'float64', uplo, n: a.rows, count, kind: 'strided', sharedLimit: LIMIT }, tuning, { force: { leafMax } });
  for (const step of plan.steps) {
    if (step.kind !== 'leaf') {
      if (step.kind === 'syrk') cpuSyrk(syrkStep(uplo, a, step));
      else cpuTrmm(trmmStep(uplo, a, step));
    } else for (let i = 0; i < count; i++) {
      const m = matrixAt(a, i);
      emulateLeaf(uplo, step.span.size, m.data, m.offset + step.span.off * (1 + m.ld), m.ld);
    }
  }
}

test('lauum plans on the CPU match the reference: both uplo, deep recursion, odd layouts, lists, the other triangle untouched', () => {
  const rng = new Rng(1221);
  for (const uplo of ['lower', 'upper'] as const) {
    for (const [n, leafMax] of [[1, 32], [13, 4], [33, 16], [47, 5], [70, 32], [100, 1]] as const) {
      const count = 3;
      const l: Layout = oddLayout(n, n, count);
      const A = randomBuffer(rng, 'float64', layoutLength(l));
      const batch = (x: FloatArray): StridedBatch<FloatArray> => strided(x, { rows: n, cols: n, count, ld: l.ld, stride: l.stride, offset: l.offset });
      const want = A.slice();
      cpuLauum({ uplo, a: batch(want), info: new Int32Array(count) });
      const got = A.slice();
      runPlanOnCpu(uplo, batch(got), leafMax);
      compareOutput(got, want, inTriangle(l, uplo), syrkTolerance('float64', n), `lauum ${uplo} n=${n} leaf=${leafMax}`);
      const entries = (x: FloatArray) => Array.from({ length: count }, (_, i) => ({ data: x, offset: l.offset + (count - 1 - i) * l.stride }));
      const gotList = A.slice();
      runPlanOnCpu(uplo, list(entries(gotList), { rows: n, ld: l.ld }), leafMax);
      compareOutput(gotList, want, inTriangle(l, uplo), syrkTolerance('float64', n), `lauum ${uplo} n=${n} leaf=${leafMax} (list)`);
    }
  }
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('lauum leaf kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  const sources = [lauumLeafSource({ dtype: 'float64', uplo: 'lower', kind: 'strided' }), lauumLeafSource({ dtype: 'float32', uplo: 'upper', kind: 'pointer' })];
  // The register leaf's table shapes, both forms.
  for (const [tile, reg] of [[16, 4], [32, 4], [64, 8]] as const) for (const pipelined of [false, true]) {
    sources.push(lauumRegisterLeafSource({ dtype: 'float64', uplo: pipelined ? 'lower' : 'upper', kind: 'strided', tile, reg, pipelined, packed: tile === 64 }));
    sources.push(lauumRegisterLeafSource({ dtype: 'float32', uplo: pipelined ? 'upper' : 'lower', kind: 'pointer', tile, reg, pipelined, packed: tile === 32 }));
  }
  const failures = compileFailures(await compileForSm90(sources), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});
