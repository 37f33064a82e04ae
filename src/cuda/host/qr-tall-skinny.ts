/**
 * The array-level qr's tall-and-skinny route on one GPU: a stack of column-major m x n host
 * matrices uploaded, TSQR (kernels/tsqr) run over it, Q (unless only R is wanted), R and info
 * downloaded. The router (ARRAY_ROUTES.qr) decides when this runs; api/array-qr.ts sends the
 * matrices TSQR reports failed through geqrf + orgqr.
 */
import { strided } from '../../core/batch.js';
import { allocate, dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import type { TallSkinnyQrResult } from '../../core/device-backend.js';
import { tsqrCuda } from '../kernels/tsqr/index.js';
import type { GpuDevice } from '../runtime/types.js';

export function qrTallSkinnyOn(dev: GpuDevice, a: FloatArray, m: number, n: number, count: number, wantQ: boolean): TallSkinnyQrResult {
  const dtype = dtypeOfArray(a, 'a.data');
  const work = dev.upload(a);
  const rWork = dev.alloc(dtype, count * n * n);
  const infoWork = dev.alloc('int32', count);
  try {
    tsqrCuda(dev, {
      a: strided(work, { rows: m, cols: n, ld: m, stride: m * n, count }, 'a'),
      r: strided(rWork, { rows: n, cols: n, ld: n, stride: n * n, count }, 'r'),
      info: infoWork,
    });
    return {
      q: wantQ ? dev.download(work) as FloatArray : allocate(dtype, 0),
      r: dev.download(rWork) as FloatArray,
      info: dev.download(infoWork) as Int32Array,
    };
  } finally {
    work.dispose();
    rWork.dispose();
    infoWork.dispose();
  }
}
