/**
 * syrkCuda: the batched symmetric rank-k update of device batches. Strided A and C run as one
 * group; list and variable batches are grouped by shape and leading dimensions into list batches
 * (pointer arrays for the leaf, the same lists for the GEMM). Per group, the plan's launches
 * (independent: they write disjoint blocks of C) run over the whole group: leaves
 * (generate-leaf.ts) and the off-diagonal blocks through the gemm family's public face on
 * sub-blocks, or the whole triangle in one launch: the GEMM restricted to it, or the tile design
 * (generate-tiles.ts). alpha = 0 or k = 0: C := beta C on the triangle, A never read (the leaf with k = 0,
 * the GEMM with alpha 0); with beta = 1 too, nothing runs. beta = 0 never reads C.
 */
import { batchCount } from '../../../core/batch.js';
import type { SyrkRequest } from '../../../core/ops.js';
import { tuningFor, type SyrkTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import type { FamilyOptions } from '../common/family-options.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, operandArgs, sharedLimit } from '../common/operands.js';
import { groupBlocks, type BlockGroup } from '../common/sub-blocks.js';
import { gemmCuda } from '../gemm/index.js';
import { leafOffsets, offdiagRequest } from './blocks.js';
import { syrkLeafSource } from './generate-leaf.js';
import { syrkTilesSource } from './generate-tiles.js';
import type { SyrkForce, SyrkPlan, SyrkStep } from './params.js';
import { planSyrk } from './plan.js';

export type SyrkOptions = FamilyOptions<SyrkForce, SyrkTuning>;

export function syrkCuda(dev: GpuDevice, r: SyrkRequest<DeviceArray>, opts: SyrkOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const temporaries: DeviceArray[] = [];
  try {
    const groups = groupBlocks(dev, [r.a, r.c], temporaries, ([, c]) => c!.rows === 0);
    for (const g of groups) syrkGroup(dev, r, g, opts);
  } finally {
    if (temporaries.length > 0) {
      dev.synchronize();
      for (const t of temporaries) t.dispose();
    }
  }
}

function syrkGroup(dev: GpuDevice, r: SyrkRequest<DeviceArray>, g: BlockGroup, opts: SyrkOptions): void {
  const [a, c] = g.batches as [BlockGroup['batches'][0], BlockGroup['batches'][0]];
  const n = c.rows;
  const k = r.alpha === 0 ? 0 : r.trans === 'N' ? a.cols : a.rows;
  if (n === 0 || (k === 0 && r.beta === 1)) return;
  const dtype = deviceDtype(c);
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'syrk');
  const kind = g.args[1]!.kind;
  const planNow = (): SyrkPlan => planSyrk({ uplo: r.uplo, trans: r.trans, dtype, n, k, count: g.count, kind, sharedLimit: sharedLimit(dev) }, tuning, { force: opts.force });
  // A repeated problem gets the same plan object, so its kernels are found by identity (kernelFor), not by a key built each call.
  const plan = opts.tuning === undefined && opts.force === undefined ? plannedOnce(dev, `syrk/${r.uplo}${r.trans}/${dtype}/${n},${k},${g.count}/${kind}`, planNow) : planNow();
  for (const step of plan.steps) {
    const scaled = { ...r, alpha: k === 0 ? 0 : r.alpha };
    if (step.kind === 'leaf') launchLeaf(dev, plan, r, g, step, k);
    else if (step.kind === 'tiles') launchTiles(dev, plan, r, g, n, k);
    else if (step.kind === 'offdiag') gemmCuda(dev, offdiagRequest(scaled, a, c, k, step));
    else gemmCuda(dev, offdiagRequest(scaled, a, c, k, { kind: 'offdiag', rows: { off: 0, size: n }, cols: { off: 0, size: n } }), { triangle: r.uplo });
  }
}

function launchLeaf(dev: GpuDevice, plan: SyrkPlan, r: SyrkRequest<DeviceArray>, g: BlockGroup, step: Extract<SyrkStep, { kind: 'leaf' }>, k: number): void {
  const { params: p, shape } = plan.leaves.get(step.size)!;
  const [argsA, argsC] = g.args as [BlockGroup['args'][0], BlockGroup['args'][0]];
  const delta = leafOffsets(r.trans, step.off, argsA.ld, argsC.ld);
  const kernel = kernelFor(dev, 'syrk-leaf', p, () => syrkLeafSource(p));
  kernel.launch({ grid: [Math.ceil(g.count / shape.matrices), step.blocks, 1], block: [shape.side, shape.side, shape.matrices], sharedBytes: shape.sharedBytes }, [
    ...operandArgs({ ...argsA, offset: argsA.offset + delta.a }), ...operandArgs({ ...argsC, offset: argsC.offset + delta.c }),
    arg.i32(g.count), arg.i32(step.size), arg.i32(k), arg.real(p.dtype, r.alpha), arg.real(p.dtype, r.beta),
  ]);
}

function launchTiles(dev: GpuDevice, plan: SyrkPlan, r: SyrkRequest<DeviceArray>, g: BlockGroup, n: number, k: number): void {
  const t = plan.tiles!;
  const [argsA, argsC] = g.args as [BlockGroup['args'][0], BlockGroup['args'][0]];
  const kernel = kernelFor(dev, 'syrk-tiles', t.params, () => syrkTilesSource(t.params));
  kernel.launch({ grid: [t.blocks, 1, 1], block: [t.side, t.side, t.matrices], sharedBytes: t.sharedBytes }, [
    ...operandArgs(argsA), ...operandArgs(argsC),
    arg.i32(g.count), arg.i32(n), arg.i32(k), arg.real(t.params.dtype, r.alpha), arg.real(t.params.dtype, r.beta),
  ]);
}
