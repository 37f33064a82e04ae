/**
 * The large Cholesky's panel in ONE launch: the diagonal block's factor-and-inverse
 * (generate-diagonal.ts) and the solve of the panel below it with that inverse
 * (generate-panel-solve.ts), which were two launches a panel, one after the other on the
 * factorization's critical path (gpu-only-cholesky.txt: the panel is the serial part; its cost is
 * latency, not arithmetic). In one grid the row blocks start while the diagonal block is still being
 * factored: they stage their rows of the panel (the diagonal kernel never writes them), then wait
 * for their matrix's flag, read W through L2 and solve. What this saves a panel: one launch gap and
 * the rows' staging, off the critical path.
 *
 * Grid (1-D): count diagonal blocks and count x rowBlocks row blocks. Each block takes a ticket
 * (common/flags.ts): tickets 0 ... count - 1 factor matrix `ticket`'s diagonal block and release its
 * flag; the others solve row block (ticket - count) % rowBlocks of matrix (ticket - count) /
 * rowBlocks. A row block waits only on a smaller ticket, which has started, so the grid cannot
 * deadlock whatever order the blocks are scheduled in. `sync` holds the ticket counter and a flag
 * per matrix, zeroed by the launcher (a fresh slot per panel).
 *
 * The block is as large as the larger role (the diagonal's 608 threads at nb = 96 against the solve's
 * 384); the dynamic shared memory is the solve's (its rows and W), the static the diagonal's.
 */
import type { KernelSource } from '../../runtime/types.js';
import { operandParameters } from '../common/batch-pointer.js';
import { FLAG_HELPERS } from '../common/flags.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import { potrfDiagonalDevice, potrfDiagonalThreads } from './generate-diagonal.js';
import { POTRF_PANEL_ROWS, potrfPanelSolveDevice, potrfPanelSolveSharedBytes, potrfPanelSolveThreads } from './generate-panel-solve.js';
import type { PotrfDiagonalParams } from './params.js';

/** Threads of a block: the larger of the two roles. */
export function potrfFusedPanelThreads(nb: number): number {
  return Math.max(potrfDiagonalThreads(nb), potrfPanelSolveThreads(nb));
}

/** Dynamic shared bytes: the solve's (its rows and W). */
export const potrfFusedPanelSharedBytes = potrfPanelSolveSharedBytes;

/** Ints of `sync` a panel uses: the ticket counter and a flag per matrix. */
export const potrfFusedPanelSyncInts = (count: number): number => 1 + count;

export function potrfFusedPanelSource(p: PotrfDiagonalParams): KernelSource {
  const entry = `potrf_fpanel_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_nb${p.nb}`;
  const threads = potrfFusedPanelThreads(p.nb);
  const source = `${precisionPrelude(p.dtype)}
${FLAG_HELPERS}
${potrfDiagonalDevice(p)}
${potrfPanelSolveDevice(p)}
// A: each matrix's diagonal block (offset at its first element; the panel below starts size rows
// ('lower') or columns ('upper') further); W: count inverses of ${p.nb} x ${p.nb}; column: the block's first
// column (for info); m: the panel's rows below the block, in rowBlocks blocks of ${POTRF_PANEL_ROWS}.
extern "C" __global__ void __launch_bounds__(${threads}) ${entry}(
    ${operandParameters('A', 'strided', true)}, real* __restrict__ W, int* __restrict__ info,
    int count, int size, int column, int m, int rowBlocks, int* __restrict__ sync) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  const int ticket = takeTicket(sync);
  int* flags = sync + 1;
  if (ticket < count) {
    potrfDiagonalBlock(A + offsetA + (long long)ticket * strideA, ldA, W + (long long)ticket * ${p.nb * p.nb}, info + ticket, size, column);
    __threadfence();                        // W (and the factor) before the flag
    __syncthreads();
    if (threadIdx.x == 0) releaseFlag(flags + ticket);
    return;
  }
  const int u = ticket - count, q = u / rowBlocks, r0 = (u % rowBlocks) * ${POTRF_PANEL_ROWS};
  real* panel = A + offsetA + (long long)q * strideA + ${p.uplo === 'lower' ? 'size' : '(long long)size * ldA'};
  real* xs = reinterpret_cast<real*>(smemRaw);   // the block's rows
  real* ws = xs + ${p.nb * POTRF_PANEL_ROWS};                // W
  potrfPanelStageRows(xs, panel, ldA, m, size, r0, ${threads});
  if (threadIdx.x == 0) while (acquireFlag(flags + q) == 0) {}
  __syncthreads();
  potrfPanelStageW(ws, W + (long long)q * ${p.nb * p.nb}, size, ${threads}, true);
  __syncthreads();
  potrfPanelSolveRows(xs, ws, panel, ldA, m, size, r0);
}
`;
  return { name: `${entry}.cu`, source, entry };
}
