/**
 * The launcher of the complex trsm kernels: complexTrsmCuda. The device arrays hold the parts'
 * dtype; the batches' rows, ld, stride and offset count pairs, as the kernels' `real2` pointers do,
 * and a list batch's pointer table is built with a pair's bytes (common/triangle-warp.ts
 * forTriangleGroups). A strided batch is one launch; a list batch one per shape and leading
 * dimension of its matrices. Each launch group runs the kernel plan.ts planZtrsmLeaf picks: the
 * columns design (generate-columns.ts) or the warp design (generate-small.ts). Triangles above
 * ZTRSM_MAX_N run the recursion's steps (plan.ts ztrsmSteps) in order over the whole batch: leaves
 * on those kernels, updates on the complex GEMM (gemm's public face), both on sub-blocks of every matrix.
 */
import type { ComplexTrsmRequest } from '../../../core/op-specs.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { complexGemmCuda } from '../gemm/index.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype } from '../common/operands.js';
import {
  forTriangleGroups, launchTriangleWarp, passGridY, runTriangle, triangleArgs, triangleShape, type TriangleWarpDesign,
} from '../common/triangle-warp.js';
import { columnsLayout, ztrsmColumnsSource } from './generate-columns.js';
import { ztrsmSmallSource } from './generate-small.js';
import { planZtrsm, planZtrsmColumns, ztrsmLeafDesign, ztrsmSteps, type ZtrsmForce } from './plan.js';

const WARP_DESIGN: TriangleWarpDesign = { name: 'ztrsm', op: 'trsm', plan: planZtrsm, source: ztrsmSmallSource, steps: ztrsmSteps, gemm: complexGemmCuda };

export interface ZtrsmOptions {
  /** Pins the leaf kernel's design and choices (probes, tests); the plan decides what is left. */
  readonly force?: ZtrsmForce;
}

const forceKey = (f: ZtrsmForce | undefined): string => (f === undefined ? '' : `/${f.design ?? ''},${f.matrices ?? ''},${f.rhs ?? ''},${f.early ?? ''}`);

/** The launches of a triangle of order 1 .. 32: the design plan.ts picks for the request, planned per launch group. */
function launchLeaf(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>, force: ZtrsmForce | undefined): void {
  const dtype = deviceDtype(r.b);
  if (r.b.kind === 'variable') throw new Error('unreachable: runTriangle refuses variable batches');
  const { order, vectors } = triangleShape(r.side, r.b.rows, r.b.cols);
  if (ztrsmLeafDesign({ dtype, n: order, vectors }, force) === 'warp') {
    launchTriangleWarp(dev, WARP_DESIGN, r);
    return;
  }
  forTriangleGroups(dev, r, (g) => {
    const { a, b, shape } = g;
    const key = `ztrsm-columns/${dtype}/${shape.order},${shape.vectors}/${r.side}${r.uplo}${r.transA}${r.diag}/${a.kind},${b.kind}${forceKey(force)}`;
    const p = plannedOnce(dev, key, () => planZtrsmColumns({
      dtype, n: shape.order, vectors: shape.vectors, side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag, kindA: a.kind, kindB: b.kind,
    }, force));
    const k = kernelFor(dev, 'ztrsm-columns', p, () => ztrsmColumnsSource(p));
    const blocks = Math.ceil(g.count / p.matrices);
    const y = passGridY(blocks, Math.ceil(shape.vectors / (p.lanes * p.rhs)), dev.info.smCount);
    k.launch({ grid: [blocks, y, 1], block: [columnsLayout(p).threads, 1, 1] }, triangleArgs(g, r.alpha));
  });
}

/** ztrsm / ctrsm: B := alpha op(A)^-1 B ('left') or alpha B op(A)^-1 ('right'), a triangle of any order. */
export function complexTrsmCuda(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>, options: ZtrsmOptions = {}): void {
  runTriangle(dev, { ...WARP_DESIGN, leaf: (d, q) => launchLeaf(d, q, options.force) }, r);
}
