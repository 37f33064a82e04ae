/**
 * The tuning command without a GPU: the sweep's grid plans and generates (its --dry-run), and the
 * rows a sweep would measure turn into table entries of model/tuning's shape.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { factorCases, factorGrid, factorTable, type FactorRow } from '../../src/cuda/tune/factor-sweep.js';
import { dryRun, gemmDryRun, tableSource } from '../../src/cuda/tune/main.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';

test('dry run: every point of the potrf and getrf sweeps plans and generates a kernel', () => {
  for (const family of ['potrf', 'getrf'] as const) {
    const lines = dryRun(family, ['float64']);
    assert.equal(lines.length, factorCases(family, ['float64']).length);
    for (const line of lines) assert.match(line, /: (\d+) points, \1 kernels$/, line); // each point its own kernel
  }
});

test('dry run: every point of the gemm sweep plans and generates', () => {
  const lines = gemmDryRun(['float64', 'float32'], [16, 32, 64, 128, 256]);
  assert.equal(lines.length, 10);
  for (const line of lines) {
    const [, points, kernels] = /: (\d+) points, (\d+) kernels$/.exec(line) ?? [];
    // (the planned point may spell a grid point's parameters differently: one kernel, two points)
    assert.ok(Number(kernels) >= 1 && Number(kernels) >= Number(points) - 1, line);
  }
});

test('rows become table entries: the sm_90 potrf choices come back from rows that favour them', () => {
  const sm90 = tuningFor('sm_90', 'potrf');
  const rows: FactorRow[] = [];
  for (const c of factorCases('potrf', ['float64'])) {
    const wantRegister = c.n <= sm90.registerMax.float64;
    const shape = sm90.registerShapes.float64.find((b) => c.n <= b.maxN)!.shape;
    const widest = sm90.panelWidest.float64.find((b) => c.n <= b.maxN)!.widest;
    for (const p of factorGrid(c)) {
      const isShape = p.register !== undefined && p.register.warps === shape.warps && p.register.nb === shape.nb && p.register.minBlocks === shape.minBlocks;
      const ms = p.design === 'register' ? (isShape && wantRegister ? 1 : 3) : p.panelWidest === widest ? 2 : 4;
      rows.push({ ...c, ...p, ms });
    }
  }
  const table = factorTable('potrf', rows);
  assert.equal(table.registerMax?.float64, sm90.registerMax.float64);
  assert.deepEqual(table.registerShapes?.float64, sm90.registerShapes.float64);
  assert.ok(tableSource('t', table).includes('Infinity'));
});
