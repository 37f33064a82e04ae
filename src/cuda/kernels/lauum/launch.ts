/**
 * lauumCuda: the batched lauum of device batches (info := 0: lauum has no failure). Strided A
 * runs as one group; list and variable batches are grouped by shape and leading dimension into
 * list batches (pointer arrays for the leaf, the same lists for the SYRK and TRMM steps). Per
 * group, the plan's launches run in order over the whole group: leaves (generate-leaf.ts), the
 * syrk family's and the trsm family's trmm on sub-blocks (blocks.ts).
 */
import { batchCount } from '../../../core/batch.js';
import type { Uplo } from '../../../core/enums.js';
import type { LauumRequest } from '../../../core/ops.js';
import { tuningFor, type LauumTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import type { FamilyOptions } from '../common/family-options.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { blocksPerSM } from '../../model/occupancy.js';
import { deviceDtype, operandArgs, sharedLimit } from '../common/operands.js';
import { groupBlocks, type BlockGroup } from '../common/sub-blocks.js';
import { syrkCuda } from '../syrk/index.js';
import { trmmCuda } from '../trsm/index.js';
import { syrkStep, trmmStep } from './blocks.js';
import { lauumLeafSource } from './generate-leaf.js';
import { lauumRegisterLeafSource } from './generate-register-leaf.js';
import type { LauumForce, LauumPlan, Span } from './params.js';
import { planLauum } from './plan.js';

export type LauumOptions = FamilyOptions<LauumForce, LauumTuning>;

export function lauumCuda(dev: GpuDevice, r: LauumRequest<DeviceArray, DeviceArray>, opts: LauumOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  zeroInfo(dev, r.info, null, count);
  lauumTriangles(dev, r, opts);
}

/**
 * The lauum of every matrix of `r.a` without touching any info (for potri, whose info comes from
 * trtri: a matrix it failed on must be left out by the caller, e.g. as a list of the others).
 */
export function lauumTriangles(dev: GpuDevice, r: Pick<LauumRequest<DeviceArray>, 'uplo' | 'a'>, opts: LauumOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const temporaries: DeviceArray[] = [];
  try {
    for (const g of groupBlocks(dev, [r.a], temporaries, ([a]) => a!.rows === 0)) lauumGroup(dev, r.uplo, g, opts);
  } finally {
    if (temporaries.length > 0) {
      dev.synchronize();
      for (const t of temporaries) t.dispose();
    }
  }
}

function lauumGroup(dev: GpuDevice, uplo: Uplo, g: BlockGroup, opts: LauumOptions): void {
  const a = g.batches[0]!;
  if (a.rows === 0) return;
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'lauum');
  const dtype = deviceDtype(a), kind = g.args[0]!.kind;
  const planNow = (): LauumPlan => planLauum({ dtype, uplo, n: a.rows, count: g.count, kind, sharedLimit: sharedLimit(dev) }, tuning, { force: opts.force });
  // A repeated problem gets the same plan object, so its register leaves are found by identity (kernelFor).
  const plan = opts.tuning === undefined && opts.force === undefined ? plannedOnce(dev, `lauum/${uplo}/${dtype}/${a.rows},${g.count}/${kind}`, planNow) : planNow();
  for (const step of plan.steps) {
    if (step.kind === 'leaf') launchLeaf(dev, plan, g, step.span);
    else if (step.kind === 'syrk') syrkCuda(dev, syrkStep(uplo, a, step));
    else trmmCuda(dev, trmmStep(uplo, a, step));
  }
}

function launchLeaf(dev: GpuDevice, plan: LauumPlan, g: BlockGroup, span: Span): void {
  const shape = plan.shapes.get(span.size)!;
  const args = g.args[0]!;
  const register = plan.registerLeaves.get(span.size);
  // The register leaf's matrices share blockDim.x; the shared-memory leaf's are blockDim.y.
  const kernel = register === undefined
    ? kernelFor(dev, 'lauum-leaf', plan.leaf, () => lauumLeafSource(plan.leaf))
    : kernelFor(dev, 'lauum-register-leaf', register, () => lauumRegisterLeafSource(register));
  const block: [number, number, number] = register === undefined ? [shape.threads, shape.matrices, 1] : [shape.threads * shape.matrices, 1, 1];
  const groups = Math.ceil(g.count / shape.matrices);
  // The pipelined form: persistent blocks, as many as the GPU holds at once (the kernel's registers as compiled).
  const resident = (): number => dev.info.smCount * Math.max(1, blocksPerSM(dev.info, { threads: block[0], registersPerThread: kernel.registers, sharedBytes: shape.sharedBytes }));
  kernel.launch({ grid: [register?.pipelined === true ? Math.min(groups, resident()) : groups, 1, 1], block, sharedBytes: shape.sharedBytes }, [
    ...operandArgs({ ...args, offset: args.offset + span.off + span.off * args.ld }),
    arg.i32(g.count), arg.i32(span.size), arg.i32(shape.lds),
  ]);
}
