/**
 * potrs, getrs, posv and gesv with fewer right-hand sides than the trsm route's minimum: where the
 * card's trsm table takes the shape by the flag-chained substitution, the solves run as trsm (one
 * chained launch a triangle, getrs's interchanges around them); elsewhere the substitution kernel
 * as before, and for batches of many matrices. Recorded on a device that runs nothing (sm_90's tables).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { gesvCuda, getrsCuda, posvCuda, potrsCuda } from '../../src/cuda/kernels/solve/index.js';
import { H100 } from '../helpers/devices.js';
import { chainRhs } from '../../src/cuda/kernels/trsm/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { recordingDevice, type Recorded } from '../helpers/recording-device.js';

function operands(dev: ReturnType<typeof recordingDevice>, dtype: DType, n: number, nrhs: number, count: number) {
  const a = strided(dev.alloc(dtype, n * n * count) as DeviceArray, { rows: n, cols: n, count });
  const b = strided(dev.alloc(dtype, n * nrhs * count) as DeviceArray, { rows: n, cols: nrhs, count });
  return { a, b, ipiv: dev.alloc('int32', n * count) as DeviceArray, pivotStride: n, info: dev.alloc('int32', count) as DeviceArray };
}

const entries = (out: readonly Recorded[]): string[] => out.map((r) => r.src.entry);
const chains = (out: readonly Recorded[]): string[] => entries(out).filter((e) => e.startsWith('trsm_chain_'));
const substitutions = (out: readonly Recorded[]): string[] => entries(out).filter((e) => /^solve_[ds]_/.test(e));

test('getrs and potrs with few right-hand sides: the chained trsm where the card\'s table takes the shape, the substitution elsewhere', () => {
  const tuning = tuningFor('sm_90', 'trsm');
  // [dtype, n, nrhs, whether sm_90's chain bands take it]: float64 up to 8 columns from 128, float32 up to 4 from 96.
  const cases: [DType, number, number, boolean][] = [['float64', 256, 1, true], ['float64', 128, 8, true], ['float64', 192, 5, true], ['float32', 96, 1, true],
    ['float32', 384, 3, true], ['float64', 128, 5, true], ['float64', 96, 1, false], ['float32', 64, 1, false], ['float64', 40, 1, false]];
  for (const [dtype, n, nrhs, takes] of cases) {
    const count = 100;
    assert.equal(chainRhs({ op: 'trsm', side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', dtype, m: n, n: nrhs, count, sms: H100.smCount }, tuning) > 0, takes, `${dtype} ${n} x ${nrhs}: the table`);
    const what = `${dtype} ${n} x ${nrhs}`;
    for (const trans of ['N', 'T'] as const) {
      const out: Recorded[] = [];
      const dev = recordingDevice(out);
      getrsCuda(dev, { trans, ...operands(dev, dtype, n, nrhs, count) });
      if (takes) {
        assert.equal(chains(out).length, 2, `getrs ${trans} ${what}: two chained solves`);
        assert.deepEqual(substitutions(out), [], `getrs ${trans} ${what}`);
        const swap = entries(out).findIndex((e) => e.startsWith('laswp_'));
        // P B before L and U (op N), after U^T and L^T (op T).
        assert.equal(swap, trans === 'N' ? entries(out).findIndex((e) => e.startsWith('trsm_chain_')) - 1 : out.length - 1, `getrs ${trans} ${what}: ${entries(out).join(', ')}`);
      } else {
        assert.deepEqual(chains(out), [], `getrs ${trans} ${what}`);
        if (n > 32) assert.equal(substitutions(out).length, 1, `getrs ${trans} ${what}: ${entries(out).join(', ')}`);
      }
    }
    for (const uplo of ['lower', 'upper'] as const) {
      const out: Recorded[] = [];
      const dev = recordingDevice(out);
      const { a, b, info } = operands(dev, dtype, n, nrhs, count);
      potrsCuda(dev, { uplo, a, b, info });
      assert.equal(chains(out).length, takes ? 2 : 0, `potrs ${uplo} ${what}: ${entries(out).join(', ')}`);
      assert.equal(substitutions(out).length, takes || n <= 32 ? 0 : 1, `potrs ${uplo} ${what}`);
    }
  }
});

test('a batch of more than the trsm table\'s chainMaxPerSm matrices per SM keeps the substitution kernel; at the bound, the chain', () => {
  const bound = tuningFor('sm_90', 'trsm').chainMaxPerSm * H100.smCount;
  for (const [count, chained] of [[bound, true], [bound + 1, false]] as const) {
    for (const dtype of ['float64', 'float32'] as const) {
      const out: Recorded[] = [];
      const dev = recordingDevice(out);
      getrsCuda(dev, { trans: 'N', ...operands(dev, dtype, 256, 1, count) });
      const { a, b, info } = operands(dev, dtype, 256, 1, count);
      potrsCuda(dev, { uplo: 'lower', a, b, info });
      assert.equal(chains(out).length, chained ? 4 : 0, `${dtype} 256 x ${count}: ${entries(out).join(', ')}`);
      assert.equal(substitutions(out).length, chained ? 0 : 2, `${dtype} 256 x ${count}`);
    }
  }
});

test('posv and gesv with one right-hand side at 256: factored, then the chained solves on the copy-aside route', () => {
  for (const [name, run] of [
    ['posv', (dev: ReturnType<typeof recordingDevice>) => { const { a, b, info } = operands(dev, 'float64', 256, 1, 64); posvCuda(dev, { uplo: 'lower', a, b, info }); }],
    ['gesv', (dev: ReturnType<typeof recordingDevice>) => gesvCuda(dev, operands(dev, 'float64', 256, 1, 64))],
  ] as const) {
    const out: Recorded[] = [];
    run(recordingDevice(out));
    assert.equal(chains(out).length, 2, `${name}: ${entries(out).join(', ')}`);
    assert.deepEqual(substitutions(out), [], name);
  }
});
