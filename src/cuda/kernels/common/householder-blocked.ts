/**
 * The blocked compact-WY geqrf and orgqr drivers (LAPACK's dgeqrf and dorgqr over panels of nb
 * reflectors) that the real and the complex QR families share: the order of their launches on a
 * workspace chunk, over each family's own steps (its shared-memory kernel, its laset, its block-
 * reflector application from the left with H^T or H^H). The plan (`HouseholderBlockedPlan`,
 * householder-plan.ts) says nb and where the shared kernel takes the tail.
 */
import type { Batch } from '../../../core/batch.js';
import type { DeviceArray } from '../../runtime/types.js';
import type { HouseholderBlockedPlan, HouseholderShape } from './householder-plan.js';
import type { OperandArgs } from './operands.js';
import { wyView, type WyChunk } from './wy-launch.js';

/** A family's launches on one chunk, as the drivers call them. */
export interface HouseholderSteps {
  /** The shared-memory kernel on the rows x cols views `a` and `tau` of every matrix (geqrf writes info at `info`). */
  readonly shared: (shape: Omit<HouseholderShape, 'dtype' | 'kind'>, a: OperandArgs, tau: OperandArgs, info: bigint | null) => void;
  /** The view `a` of every matrix := 0 off the diagonal, `diagonal` on it. */
  readonly laset: (a: OperandArgs, diagonal: number) => void;
  /**
   * V and Y of the r x ib reflectors at `panel` (taus at `taus`), then `target` (r x nc) := H^T C /
   * H^H C (`adjoint`) or H C from the left.
   */
  readonly applyLeft: (panel: OperandArgs, taus: OperandArgs, r: number, ib: number, adjoint: boolean, target: Batch<DeviceArray>, nc: number) => void;
}

/** The blocked geqrf of one chunk (operands A and tau), by plan `p`: panels, each followed by its update; the tail on the shared kernel. */
export function householderGeqrfBlocked(p: HouseholderBlockedPlan, c: WyChunk, info: DeviceArray, steps: HouseholderSteps): void {
  const [a, tau] = c.operands as [WyChunk['operands'][0], WyChunk['operands'][0]];
  const { m, n, k, nb } = p;
  const infoAt = c.infoPointer(info);
  const end = p.tailKernel ? p.tail : k;
  for (let j = 0; j < end; j += nb) {
    const ib = Math.min(nb, k - j);
    const r = m - j;
    const panel = wyView(a, j, j, r, ib);
    const taus = wyView(tau, j, 0, ib, 1);
    steps.shared({ op: 'geqrf', m: r, n: ib, k: ib }, panel.args, taus.args, infoAt);
    const nc = n - j - ib;
    if (nc <= 0) continue;
    steps.applyLeft(panel.args, taus.args, r, ib, true, wyView(a, j, j + ib, r, nc).batch, nc);
  }
  if (p.tailKernel) {
    const t = p.tail;
    steps.shared({ op: 'geqrf', m: m - t, n: n - t, k: k - t }, wyView(a, t, t, m - t, n - t).args, wyView(tau, t, 0, k - t, 1).args, infoAt);
  }
}

/**
 * The blocked orgqr of one chunk (operands A and tau), by plan `p`: the tail first (the shared kernel,
 * or the unit columns by laset), then the panels from the last to the first, each applied to the
 * columns on its right and expanded in place, the rows above it zeroed.
 */
export function householderOrgqrBlocked(p: HouseholderBlockedPlan, c: WyChunk, steps: HouseholderSteps): void {
  const [a, tau] = c.operands as [WyChunk['operands'][0], WyChunk['operands'][0]];
  const { m, n, k, nb } = p;
  const t = p.tail;
  if (t < n) {
    steps.laset(wyView(a, 0, t, t, n - t).args, 0);
    if (p.tailKernel) steps.shared({ op: 'orgqr', m: m - t, n: n - t, k: k - t }, wyView(a, t, t, m - t, n - t).args, wyView(tau, t, 0, k - t, 1).args, null);
    else steps.laset(wyView(a, t, t, m - t, n - t).args, 1);
  }
  const last = t === 0 ? -1 : Math.floor((t - 1) / nb) * nb;
  for (let j = last; j >= 0; j -= nb) {
    const ib = Math.min(nb, t - j);
    const r = m - j;
    const panel = wyView(a, j, j, r, ib);
    const taus = wyView(tau, j, 0, ib, 1);
    const nc = n - j - ib;
    if (nc > 0) steps.applyLeft(panel.args, taus.args, r, ib, false, wyView(a, j, j + ib, r, nc).batch, nc);
    steps.shared({ op: 'orgqr', m: r, n: ib, k: ib }, panel.args, taus.args, null);
    steps.laset(wyView(a, 0, j, j, ib).args, 0);
  }
}
