/**
 * The blocked-driver launches of the variable-size launchers, told apart by their plans: a class
 * the plan runs in several launches (getrf's blocked classes, a panel and an update launch per
 * panel; trsm's classes whose recursion has more than one step, a leaf launch per leaf and a GEMM
 * per update) and the per-size path of members beyond the classes run inside `driverSection`.
 * Every other launch of a call serves a whole size class (a class kernel) or the whole batch (the
 * classification, copies, interchanges). Sections nest (trsm's updates run gemm's launcher); a
 * device with `driverSection` (the --vbatched bench's launch counter) is told where they begin and
 * end, any other device runs them as they are.
 */
import type { GpuDevice } from '../../runtime/types.js';

/** Runs `launch` (the launches of a blocked class, or of the per-size path) as a blocked-driver section of `dev`. */
export function driverSection(dev: GpuDevice, launch: () => void): void {
  if (dev.driverSection === undefined) {
    launch();
    return;
  }
  dev.driverSection(true);
  try {
    launch();
  } finally {
    dev.driverSection(false);
  }
}
