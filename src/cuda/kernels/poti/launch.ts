/**
 * potiCuda (potrf + trtri + lauum) and potriCuda (trtri + lauum): the batched SPD inverse of
 * device batches, in place, on the `uplo` triangle. Matrices are grouped as trtri groups them.
 * Per group: the fused kernel (generate-fused.ts) for n up to the table's fusedMax; above, the
 * composition:
 * - poti: potrf's group launcher; the host waits for its info, and the matrices that are positive
 *   definite go on (the others stay as potrf left them) to potri;
 * - potri: trtri's group launcher (info; singular triangles untouched), the host waits for its
 *   info, and lauum runs on the non-singular matrices only (the lauum family's public face).
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { PotiRequest, PotriRequest } from '../../../core/ops.js';
import { tuningFor, type TrtriTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace, type WorkspaceFrame } from '../../runtime/workspace.js';
import type { FamilyOptions } from '../common/family-options.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { zeroInfo } from '../common/info-zero.js';
import { deviceDtype, operandArgs, sharedLimit } from '../common/operands.js';
import { lauumCuda } from '../lauum/index.js';
import { potrfGroup } from '../potrf/index.js';
import { hostInfo, survivors, trtriGroup, trtriGroups, type TrtriGroup } from '../trtri/index.js';
import { potiFusedSource } from './generate-fused.js';
import type { PotiForce, PotiStage } from './params.js';
import { planPoti } from './plan.js';

export type PotiOptions = FamilyOptions<PotiForce, TrtriTuning>;

export function potiCuda(dev: GpuDevice, r: PotiRequest<DeviceArray, DeviceArray>, opts: PotiOptions = {}): void {
  spdInverse(dev, 'poti', r, opts);
}

export function potriCuda(dev: GpuDevice, r: PotriRequest<DeviceArray, DeviceArray>, opts: PotiOptions = {}): void {
  spdInverse(dev, 'potri', r, opts);
}

function spdInverse(dev: GpuDevice, stage: PotiStage, r: PotiRequest<DeviceArray, DeviceArray>, opts: PotiOptions): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'trtri');
  const temporaries: DeviceArray[] = [];
  // The composed path's scratch info comes from the device's workspace (no allocation per call).
  const frame = Workspace.of(dev).frame();
  try {
    const groups = trtriGroups(dev, r.a, count, temporaries);
    const plans = groups.map((g) => planPoti({ dtype, uplo: r.uplo, stage, n: g.n, count: g.count, kind: g.args.kind, sharedLimit: sharedLimit(dev) }, tuning, { force: opts.force }));
    groups.forEach((g, i) => {
      const plan = plans[i]!;
      if (g.n === 0) zeroInfo(dev, r.info, g.index, g.count);
      else if (plan.variant === 'fused') {
        const p = plan.params;
        const k = cachedKernel(dev, `poti-fused/${JSON.stringify(p)}`, () => potiFusedSource(p));
        const matrices = Math.min(plan.matrices, g.count);
        k.launch({ grid: [Math.ceil(g.count / matrices), 1, 1], block: [p.nb, matrices, 1], sharedBytes: plan.sharedBytes }, [
          ...operandArgs(g.args), arg.ptr(g.index === null ? 0n : g.index.ptr), arg.i32(g.count), arg.ptr(r.info), arg.i32(g.n),
        ]);
      } else composedGroup(dev, dtype, stage, r.uplo, g, r.info, temporaries, frame);
    });
  } finally {
    frame.end();
    if (temporaries.length > 0) {
      dev.synchronize();
      for (const t of temporaries) t.dispose();
    }
  }
}

/** potrf (poti), trtri, then lauum, each over the matrices the step before did not fail on. */
function composedGroup(
  dev: GpuDevice, dtype: DType, stage: PotiStage, uplo: Uplo, g: TrtriGroup, info: DeviceArray, temporaries: DeviceArray[], frame: WorkspaceFrame,
): void {
  let live: TrtriGroup | null = g;
  if (stage === 'poti') {
    potrfGroup(dev, dtype, uplo, { count: g.count, operands: [g.args], index: g.index }, info);
    live = survivors(dev, g, hostInfo(dev, info), temporaries);
    if (live === null) return;
    // A positive definite factor has no zero on its diagonal: trtri's info is all 0 (kept apart; as
    // long as the batch's info, since trtri writes through the group's index into the batch).
    const scratch = frame.take('int32', info.length, "poti's scratch info of trtri");
    trtriGroup(dev, dtype, { uplo, diag: 'nonunit', info: scratch }, live, temporaries);
  } else {
    trtriGroup(dev, dtype, { uplo, diag: 'nonunit', info }, g, temporaries);
    live = survivors(dev, g, hostInfo(dev, info), temporaries);
    if (live === null) return;
  }
  // lauum's info (0) must not reach the batch's info: the group may be a subset.
  const scratch = frame.take('int32', live.count, "poti's scratch info of lauum");
  lauumCuda(dev, { uplo, a: live.batch, info: scratch });
}
