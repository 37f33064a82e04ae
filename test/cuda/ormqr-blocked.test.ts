/**
 * ormqr's blocked compact-WY driver without a GPU: which sizes it takes (the qr table's
 * ormqrBlockedFrom, and wherever the shared kernel's reflectors do not fit), and the driver itself
 * on the emulating device (test/helpers/wy-emulator.ts: the WY kernel and the GEMMs run in
 * TypeScript with their CUDA semantics) against op(Q) C formed densely from the reflectors: both
 * sides, both transposes, k < order, ragged last blocks, padded strided batches whose padding must
 * come back untouched, list and variable batches, both dtypes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { Side } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import { ormqrBlocked, ormqrCuda } from '../../src/cuda/kernels/ormqr/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { SIDES, TRANSES, applyDense, explicitQ, ormqrTolerance, reflectors } from '../helpers/ormqr-data.js';
import { Rng } from '../helpers/random.js';
import { EmuDevice } from '../helpers/wy-emulator.js';

const H100_SHARED = 232448 - 1024;
const tuning = tuningFor('sm_90', 'qr');

test('ormqr designs: the shared kernel below ormqrBlockedFrom reflectors where they fit, blocked otherwise', () => {
  assert.equal(ormqrBlocked('float64', 32, 32, 32, H100_SHARED, tuning), false);
  assert.equal(ormqrBlocked('float64', 64, 64, 64, H100_SHARED, tuning), true);
  assert.equal(ormqrBlocked('float64', 512, 8, 4, H100_SHARED, tuning), false, 'few reflectors of order 512 fit');
  assert.equal(ormqrBlocked('float64', 512, 40, 4, 65536 - 1024, tuning), true, 'do not fit a 64 KiB card');
  assert.equal(ormqrBlocked('float64', 512, 512, 4, H100_SHARED, tuning, { design: 'shared' }), false);
  assert.equal(ormqrBlocked('float64', 8, 8, 4, H100_SHARED, tuning, { design: 'blocked' }), true);
});

/** One emulated call: `count` problems (order r, k reflectors from an r x p geqrf, C with nvec vectors) against the dense product. */
function emulated(rng: Rng, dtype: DType, side: Side, trans: Op, r: number, p: number, k: number, nvec: number, panel: number, form: 'strided' | 'list' | 'variable'): void {
  const dev = new EmuDevice();
  const count = 3;
  const [cm, cn] = side === 'left' ? [r, nvec] : [nvec, r];
  const lda = r + 2, strideA = lda * p + 3, ldc = cm + 1, strideC = ldc * cn + 4;
  const arr = (len: number) => (dtype === 'float64' ? new Float64Array(len) : new Float32Array(len));
  const A = arr(count * strideA).fill(NaN), T = arr(count * (k + 1)).fill(NaN), C = arr(count * strideC).fill(NaN);
  const want: Float64Array[] = [];
  for (let q = 0; q < count; q++) {
    const x = reflectors(rng, dtype, r, p, k);
    for (let j = 0; j < p; j++) for (let i = 0; i < r; i++) A[q * strideA + i + j * lda] = x.a[i + j * r]!;
    for (let j = 0; j < k; j++) T[q * (k + 1) + j] = x.tau[j]!;
    const c0 = Float64Array.from({ length: cm * cn }, () => rng.uniform());
    for (let j = 0; j < cn; j++) for (let i = 0; i < cm; i++) C[q * strideC + i + j * ldc] = c0[i + j * cm]!;
    const c0r = Float64Array.from(c0, (v) => (dtype === 'float32' ? Math.fround(v) : v));
    want.push(applyDense(side, trans, explicitQ(x.a, r, x.tau, r, k), c0r, cm, cn));
  }
  const dA = dev.upload(A), dT = dev.upload(T), dC = dev.upload(C);
  const batch = (d: typeof dA, rows: number, cols: number, ld: number, stride: number) =>
    form === 'strided' ? strided(d, { rows, cols, count, ld, stride })
      : form === 'list' ? list(Array.from({ length: count }, (_, q) => ({ data: d, offset: q * stride })), { rows, cols, ld })
        : variable(Array.from({ length: count }, (_, q) => ({ data: d, offset: q * stride, rows, cols, ld })));
  ormqrCuda(dev, { side, trans, a: batch(dA, r, p, lda, strideA), tau: batch(dT, k, 1, k, k + 1), c: batch(dC, cm, cn, ldc, strideC) }, { force: { design: 'blocked', panel } });
  const what = `${form} ormqr ${dtype} ${side} ${trans} r=${r} k=${k} nvec=${nvec} panel=${panel}`;
  assert.ok(dev.launches.some((e) => e.startsWith('wy_factor')), `${what}: blocked`);
  const c = dev.download(dC);
  const tol = ormqrTolerance(dtype, r);
  for (let e = 0; e < c.length; e++) { const x = e % strideC; if ((x >= ldc * cn || x % ldc >= cm) && !Number.isNaN(c[e] as number)) assert.fail(`${what}: padding ${e} written`); }
  want.forEach((w, q) => {
    let gap = 0;
    for (let j = 0; j < cn; j++) for (let i = 0; i < cm; i++) gap = Math.max(gap, Math.abs((c[q * strideC + i + j * ldc] as number) - w[i + j * cm]!));
    assert.ok(gap < tol, `${what} #${q}: max gap ${gap} (tolerance ${tol})`);
  });
}

test('blocked ormqr on the emulating device: both sides and transposes against the dense product', { timeout: 300_000 }, () => {
  const rng = new Rng(1819);
  for (const side of SIDES) for (const trans of TRANSES) {
    emulated(rng, 'float64', side, trans, 37, 37, 37, 5, 8, 'strided');
    emulated(rng, 'float64', side, trans, 41, 20, 19, 7, 8, 'list');
    emulated(rng, 'float32', side, trans, 30, 30, 23, 3, 16, side === 'left' ? 'variable' : 'strided');
  }
});
