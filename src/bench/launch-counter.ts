/**
 * A planning device that counts the launches of the calls run on it (nothing runs there), and of
 * them those inside the variable-size launchers' blocked-driver sections (common/driver-section.ts:
 * the launches of a class its plan runs in several, one per panel or per recursion step and its
 * updates, and the per-size path of members beyond the classes). The rest, `classLaunches`, each
 * serve a whole size class or the whole batch.
 */
import { PlanningDevice } from '../cuda/runtime/planning-device.js';
import type { Kernel, KernelSource } from '../cuda/runtime/types.js';

export class LaunchCounter extends PlanningDevice {
  launches = 0;
  driverLaunches = 0;
  private depth = 0;

  /** Launches that serve a whole size class or the whole batch (not a blocked driver's). */
  get classLaunches(): number {
    return this.launches - this.driverLaunches;
  }

  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return { ...k, launch: () => { this.launches++; if (this.depth > 0) this.driverLaunches++; } };
  }

  driverSection(entering: boolean): void {
    this.depth += entering ? 1 : -1;
    if (this.depth < 0) throw new Error('a blocked-driver section ended that had not begun');
  }
}
