// Probes' shared switch: MMA_BAND='[bm, bn, bk, wm, wn, stages, mmaK, doubleBuffer, minBlocks, tileGroup]' makes
// that configuration the largest float64 mma band of this process's GEMM tuning table (tuningFor
// returns the table itself, so every later plan sees it). Prints what it set.
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';

export function applyMmaBand(ctx) {
  if (!process.env.MMA_BAND) return;
  const [bm, bn, bk, wm, wn, stages, mmaK, doubleBuffer, minBlocks, tileGroup] = JSON.parse(process.env.MMA_BAND);
  const config = { bm, bn, bk, wm, wn, stages, mmaK: mmaK ?? 8, ...(doubleBuffer ? { doubleBuffer: true } : {}), ...(minBlocks ? { minBlocks } : {}), ...(tileGroup ? { tileGroup } : {}) };
  const t = tuningFor(ctx.deviceBackend.device.info.arch, 'gemm');
  t.mma = [...t.mma.slice(0, -1), { maxDim: Infinity, config }];
  console.log(`largest mma band: ${JSON.stringify(config)}`);
}
