/**
 * Which GPU test files run at once, and where. Pure: the runner gives it the files, what each
 * needs (FileNeeds, from the table in plan.ts) and the machine (free memory per device, CPU
 * cores); unit-tested with made-up machines in test/core/gpu-suite.test.ts.
 *
 * A file runs on one device (CUDA_VISIBLE_DEVICES names it) or, for files that need every GPU,
 * on all of them. A file starts when
 *   - fewer than `slots` files run (one node process each, most of them busy on the CPU
 *     computing references: slots come from the CPU cores),
 *   - its memory fits in what its device has left of its budget (the device's free memory at the
 *     start, less a reserve, less what the files running there are charged),
 *   - and, for an exclusive file, nothing else runs on its device (on any device for one that
 *     needs them all); while an exclusive file runs, nothing else starts on its device.
 * Files wait in the order given (the plan puts exclusive ones first); a file that cannot start
 * yet does not hold up smaller ones behind it, except that an exclusive file at the head of the
 * queue is not starved: once it is first, nothing new starts on a device it needs until it has run.
 */

export const GiB = 2 ** 30;

export interface FileNeeds {
  /** Device memory to charge for the file while it runs (context, workspace, data), in bytes. */
  readonly memory: number;
  /** Runs alone on its device. */
  readonly exclusive: boolean;
  /** Needs every GPU of the machine (implies exclusive on all of them). */
  readonly allGpus: boolean;
}

export interface Machine {
  /** Free memory of each device at the start, in bytes (index = ordinal as the runner sees it). */
  readonly freeBytes: readonly number[];
  /** Files running at once, at most. */
  readonly slots: number;
  /** Memory kept back on every device (the driver, fragmentation, estimates that are low). */
  readonly reserveBytes: number;
}

export interface Running {
  readonly file: string;
  readonly needs: FileNeeds;
  /** Its device, or 'all'. */
  readonly device: number | 'all';
}

export interface Start { readonly file: string; readonly device: number | 'all' }

/** Process slots from the CPU cores: one per core, at least one, at most `cap`. */
export function slotsFromCores(cores: number, cap = 16): number {
  return Math.max(1, Math.min(cap, Math.floor(cores)));
}

/** Memory each device can hand out to test files. */
export function budgets(m: Machine): number[] {
  return m.freeBytes.map((f) => Math.max(0, f - m.reserveBytes));
}

/** Whether a file could ever start on this machine (alone on an idle device): else it is reported, not queued forever. */
export function fitsAlone(needs: FileNeeds, m: Machine): boolean {
  const b = budgets(m);
  if (b.length === 0) return false;
  return needs.allGpus ? b.every((x) => x >= needs.memory) : b.some((x) => x >= needs.memory);
}

/**
 * The files to start now, given what runs and what waits (in queue order). Returns starts in
 * queue order; the caller removes them from the queue and adds them to `running`.
 */
export function nextStarts(queue: readonly string[], needsOf: (file: string) => FileNeeds, running: readonly Running[], m: Machine): Start[] {
  const devices = m.freeBytes.length;
  const left = budgets(m);
  const busy = new Array<number>(devices).fill(0);
  const locked = new Array<boolean>(devices).fill(false);   // an exclusive file runs there
  for (const r of running) {
    const on = r.device === 'all' ? [...Array(devices).keys()] : [r.device];
    for (const d of on) {
      left[d]! -= r.needs.memory;
      busy[d]!++;
      if (r.needs.exclusive || r.needs.allGpus) locked[d] = true;
    }
  }
  let slots = m.slots - running.length;
  const reserved = new Array<boolean>(devices).fill(false);   // held for a waiting exclusive file
  const starts: Start[] = [];
  for (const file of queue) {
    if (slots <= 0) break;
    const n = needsOf(file);
    if (!fitsAlone(n, m)) continue;   // the runner reports these; never started
    if (n.allGpus) {
      const idle = busy.every((b) => b === 0);
      if (idle) {
        starts.push({ file, device: 'all' });
        for (let d = 0; d < devices; d++) { busy[d]!++; locked[d] = true; left[d]! -= n.memory; }
        slots--;
      } else reserved.fill(true);
      continue;
    }
    if (n.exclusive) {
      // The idle device with the most memory; else hold the device that will free up for it.
      let best = -1;
      for (let d = 0; d < devices; d++) if (busy[d] === 0 && !reserved[d] && left[d]! >= n.memory && (best < 0 || left[d]! > left[best]!)) best = d;
      if (best >= 0) {
        starts.push({ file, device: best });
        busy[best]!++; locked[best] = true; left[best]! -= n.memory;
        slots--;
      } else {
        const target = pickHold(busy, reserved, n, m);
        if (target >= 0) reserved[target] = true;
      }
      continue;
    }
    let best = -1;
    for (let d = 0; d < devices; d++) {
      if (locked[d] || reserved[d] || left[d]! < n.memory) continue;
      // Fewest files first, then most memory left: spread over the devices.
      if (best < 0 || busy[d]! < busy[best]! || (busy[d] === busy[best] && left[d]! > left[best]!)) best = d;
    }
    if (best < 0) continue;
    starts.push({ file, device: best });
    busy[best]!++; left[best]! -= n.memory;
    slots--;
  }
  return starts;
}

/** The device a waiting exclusive file holds: one not yet held whose full budget fits it, fewest files running first. */
function pickHold(busy: readonly number[], reserved: readonly boolean[], n: FileNeeds, m: Machine): number {
  const full = budgets(m);
  let best = -1;
  for (let d = 0; d < busy.length; d++) {
    if (reserved[d] || full[d]! < n.memory) continue;
    if (best < 0 || busy[d]! < busy[best]!) best = d;
  }
  return best;
}
