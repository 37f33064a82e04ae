/**
 * The recursive LU's row interchanges (dlaswp, incx = 1) on a range of columns of every matrix:
 * common/laswp.ts's kernel over `real`. (The solve family's permute kernel gathers whole columns
 * through shared memory instead: right for getrs's full-height B, not for a range of interchanges
 * of a tall A.)
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag } from '../common/batch-pointer.js';
import { laswpKernelSource } from '../common/laswp.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { GetrfLaswpParams } from './params.js';

export { LASWP_CHUNK, LASWP_THREADS } from '../common/laswp.js';

export function getrfLaswpSource(p: GetrfLaswpParams): KernelSource {
  const entry = `getrf_laswp_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = laswpKernelSource({ entry, prelude: precisionPrelude(p.dtype), kind: p.kind, element: 'real', reverse: false });
  return { name: `${entry}.cu`, source, entry };
}
