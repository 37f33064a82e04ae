/**
 * posv/gesv on the trsm route: B copied aside before the solves and the failed matrices' B copied
 * back after them (common/matrix-copy.ts's kernel over `real`).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag } from '../common/batch-pointer.js';
import { matrixCopySource } from '../common/matrix-copy.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { CopyParams } from './params.js';

export { COPY_THREADS } from '../common/matrix-copy.js';

export function copySource(p: CopyParams): KernelSource {
  const entry = `copy_${p.failedOnly ? 'failed' : 'all'}_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = matrixCopySource({ entry, prelude: precisionPrelude(p.dtype), kind: p.kind, element: 'real', failedOnly: p.failedOnly });
  return { name: `${entry}.cu`, source, entry };
}
