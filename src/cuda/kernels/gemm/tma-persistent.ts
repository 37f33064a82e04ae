/**
 * The persistent schedule of the TMA-fed GEMM (generate-tma.ts, `persistent`): the grid is as
 * many blocks as the GPU holds at once (the launcher's count), and block b takes the work items
 * b, b + gridDim.x, ... of tileCount * count, item w being tile w % tileCount (in the tile order,
 * grouped with `tileGroup`) of matrix w / tileCount. The ring's k-steps are numbered across the
 * block's items (s), so its barriers' phases run on from one tile to the next: the producer (its
 * own warp, or thread 0 between its k-steps) fills the buffers of the next tile while the consumer
 * warps still multiply or write C of this one, and a block's first k-steps wait for no launch.
 * The k-step's multiply, the copies and the epilogue are the tile-per-block design's text.
 */
import { tileOrder } from './tile-prologue.js';
import type { TmaGemmParams } from './params.js';

/** The opening: the item count (no matrix or tile of its own yet). */
export const PERSISTENT_OPENING = `// Work items: every tile of every matrix, taken by the blocks in turn.
  const int tileCount = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  const int work = tileCount * count;`;

/** Pieces of the design that the schedule places (generate-tma.ts). */
export interface TmaScheduleParts {
  /** The copies of k-offset p0 of tile (i0, j0) of matrix batch into dstA and dstB, completing on `full`. */
  readonly copies: string;
  /** One stage's fragment reads and mma instructions into acc, from tA and tB. */
  readonly multiply: string;
  /** acc to C at (i0, j0) of `c`. */
  readonly epilogue: string;
}

const indent = (text: string, spaces: number): string => text.split('\n').map((l) => (l === '' ? l : ' '.repeat(spaces) + l)).join('\n');

/** tileOrder's lines after its first carry a function body's 2 spaces: all at the margin here. */
const flush = (text: string): string => text.split('\n').map((l, i) => (i === 0 ? l : l.replace(/^ {2}/, ''))).join('\n');

/** The item's matrix and tile (w in scope), every line at the margin. */
const place = (p: TmaGemmParams): string => `const int batch = w / tileCount, tile = w - batch * tileCount;
${flush(tileOrder(p.tileGroup, 'tile'))}`;

/** The producer warp's lane 0: every k-step of every item, each once its buffer's previous use is released. */
const producerWarp = (p: TmaGemmParams): string => `  // The producer warp's lane 0: every k-step of every item, k-step s once the consumers have
  // released the buffer's previous use (step s - STAGES, possibly of the previous item).
  if (warp == CONSUMERS) {
    if (lane == 0) {
      prefetchMaps(&mapA, &mapB);
      int s = 0;
      for (int w = blockIdx.x; w < work; w += gridDim.x) {
${indent(place(p), 8)}
        for (int ks = 0; ks < steps; ++ks, ++s) {
          if (s >= STAGES) mbarWait(emptyBars + 8 * (s % STAGES), ((s / STAGES) - 1) & 1);
          produce(s, ks, i0, j0, batch);
        }
      }
    }
    return;
  }`;

/**
 * Thread 0 produces between its k-steps (no warp of its own: see generate-tma.ts on the register
 * budget), by the block's step number: the first STAGES before the loop, then at the top of step
 * s the step s - 1 + STAGES (of this item or a later one) into the buffer that step s - 1 used.
 */
const producerFirst = (p: TmaGemmParams): string => `  // The block's steps: its items times the k-steps of one; step S is k-step S % steps of its item S / steps.
  const int total = blockIdx.x < work ? ((work - 1 - blockIdx.x) / gridDim.x + 1) * steps : 0;
  auto produceAt = [&](int S) {
    const int w = blockIdx.x + (S / steps) * gridDim.x;
${indent(place(p), 4)}
    produce(S, S % steps, i0, j0, batch);
  };
  if (threadIdx.x == 0) {
    prefetchMaps(&mapA, &mapB);
    for (int S = 0; S < STAGES && S < total; ++S) produceAt(S);
  }`;

const REFILL = `      if (threadIdx.x == 0 && s >= 1 && s - 1 + STAGES < total) {
        mbarWait(emptyBars + 8 * ((s - 1) % STAGES), ((s - 1) / STAGES) & 1);
        produceAt(s - 1 + STAGES);
      }
`;

export function persistentSchedule(p: TmaGemmParams, parts: TmaScheduleParts): string {
  const ownWarp = p.producerWarp === true;
  return `  // The block's s-th k-step (k-offset ks * BK of tile (i0, j0) of matrix batch) into buffer s % STAGES.
  auto produce = [&](int s, int ks, int i0, int j0, int batch) {
    const int stage = s % STAGES;
    const unsigned full = fullBars + 8 * stage;
    mbarExpectBytes(full, STAGE_BYTES);
    const unsigned dstA = ring + stage * STAGE_BYTES, dstB = dstA + SIZEA * 8;
    const int p0 = ks * BK;
${parts.copies}
  };
${ownWarp ? producerWarp(p) : producerFirst(p)}

  // Consumers.
  const int g = lane / 4, q = lane % 4;                    // fragment coordinates
  const int pg = (g >> 1) | ((g & 1) << 2);                // stored row of mma row g (k-contiguous tiles)
  const int wi = (warp % WM) * (BM / WM);                  // the warp's part of the tile
  const int wj = (warp / WM) * (BN / WN);
  (void)pg;
  int s = 0;
  for (int w = blockIdx.x; w < work; w += gridDim.x) {
${indent(place(p), 4)}
    real* c = C + offsetC + (long long)batch * strideC;
    real acc[MT][NT][4];
    #pragma unroll
    for (int u = 0; u < MT; ++u)
      #pragma unroll
      for (int t = 0; t < NT; ++t)
        #pragma unroll
        for (int r = 0; r < 4; ++r) acc[u][t][r] = 0;

    for (int ks = 0; ks < steps; ++ks, ++s) {
      const int stage = s % STAGES;
${ownWarp ? '' : REFILL}      mbarWait(fullBars + 8 * stage, (s / STAGES) & 1);    // the stage's bytes have landed
      __syncwarp();                                        // mma.sync.aligned: the whole warp, converged
      const real* tA = tiles + stage * (SIZEA + SIZEB);
      const real* tB = tA + SIZEA;
${indent(parts.multiply, 2)}
      // Every lane's reads of the stage fed an mma above: the warp releases the buffer.
      __syncwarp();
      if (lane == 0) mbarArrive(emptyBars + 8 * stage);
    }

${indent(parts.epilogue, 2)}
  }
}
`;
}
