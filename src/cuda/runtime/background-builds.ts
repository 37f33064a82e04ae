/**
 * The optimised builds that quick builds (tiered.ts) wait on, compiled by background workers of
 * their own, so that the next call's urgent compiles never queue behind them. One per module key
 * for the whole process (the devices of a multi-GPU context share them, as they share the cache).
 * Each batch is collected by whichever comes first: a kernel that needs it now (`settle`, blocking)
 * or the event loop once the workers are done (the binaries then reach the disk cache even where
 * the process has nothing more to run: the workers hold it open until then).
 */
import type { CompilePool, PoolBatch, PoolOutcome } from './compile-pool.js';
import type { ModuleCache, ModuleRequest } from './module-cache.js';
import type { PendingBuild } from './tiered.js';

class BatchBuild implements PendingBuild {
  private isStored = false;
  private outcomes: readonly PoolOutcome[] = [];
  private markStored: () => void = () => undefined;
  private readonly whenStored = new Promise<void>((resolve) => { this.markStored = resolve; });

  constructor(
    private readonly pool: CompilePool,
    private readonly cache: ModuleCache,
    private readonly batch: PoolBatch,
    private readonly requests: readonly ModuleRequest[],
    private readonly onStored: () => void,
  ) {
    // A batch the pool could not finish stores nothing: the kernels' own loads compile and report.
    pool.wait(batch).then((outcomes) => { this.outcomes = outcomes; this.store(); }, () => this.store());
  }

  done(): boolean {
    return this.isStored || this.batch.done();
  }

  settle(): void {
    if (this.isStored) return;
    this.outcomes = this.pool.waitSync(this.batch);
    this.store();
  }

  stored(): Promise<void> {
    return this.whenStored;
  }

  private store(): void {
    if (this.isStored) return;
    this.isStored = true;
    // A build that failed is left out: the kernel's own load compiles it and reports the error.
    this.requests.forEach((request, i) => {
      const binary = this.outcomes[i]?.binary;
      if (binary) this.cache.put(request, binary);
    });
    this.onStored();
    this.markStored();
  }
}

/** How a batch of builds is started. */
export interface BuildStart {
  /** The pool that compiles it (default: the background workers). */
  readonly pool?: CompilePool;
  /**
   * Compiled ahead of the kernels that will need it (before a context is open, cuda/backend.ts's
   * warmAhead): a kernel that needs one of these waits for it rather than compiling it again or
   * serving a quick build meanwhile.
   */
  readonly ahead?: boolean;
}

export class BackgroundBuilds {
  private readonly pending = new Map<string, PendingBuild>();
  /** The keys of the pending builds started ahead (BuildStart.ahead). */
  private readonly ahead = new Set<string>();

  constructor(private readonly pool: () => CompilePool, private readonly cache: () => ModuleCache) {}

  /** The pending build of each request, in order: started now for those not already pending. */
  start(requests: readonly ModuleRequest[], how: BuildStart = {}): PendingBuild[] {
    const cache = this.cache();
    const keys = requests.map((r) => cache.keyOf(r));
    const fresh: ModuleRequest[] = [], freshKeys: string[] = [];
    keys.forEach((key, i) => {
      if (this.pending.has(key) || freshKeys.includes(key)) return;
      fresh.push(requests[i]!);
      freshKeys.push(key);
    });
    if (fresh.length > 0) {
      const pool = how.pool ?? this.pool();
      const build = new BatchBuild(pool, cache, pool.submit(fresh), fresh, () => {
        for (const key of freshKeys) { this.pending.delete(key); this.ahead.delete(key); }
      });
      for (const key of freshKeys) {
        this.pending.set(key, build);
        if (how.ahead === true) this.ahead.add(key);
      }
    }
    return keys.map((key) => this.pending.get(key) ?? SETTLED);
  }

  /** The build of module `key` started ahead (BuildStart.ahead), while it is pending. */
  aheadOf(key: string): PendingBuild | undefined {
    return this.ahead.has(key) ? this.pending.get(key) : undefined;
  }

  /** Blocks until every pending build is stored. */
  settleAll(): void {
    for (const build of [...this.pending.values()]) build.settle();
  }
}

/** A build already in the cache. */
const SETTLED: PendingBuild = { done: () => true, settle: () => undefined, stored: () => Promise.resolve() };
