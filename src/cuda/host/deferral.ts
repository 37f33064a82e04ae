/**
 * The asynchronous form of host calls (a context's *Async methods): inside `run(fn)`, a backend
 * hands each host call's completion to `defer` instead of waiting for it; `done` settles when
 * they have all finished and written their outputs. Shared by the one- and several-GPU backends.
 */
export class HostDeferral {
  private pending: Promise<void>[] | undefined;

  /** True inside `run`: a host call should be deferred, not waited for. */
  get active(): boolean {
    return this.pending !== undefined;
  }

  /** Records one deferred completion (only inside `run`). */
  defer(completion: Promise<void>): void {
    this.pending!.push(completion);
  }

  run<T>(fn: () => T): { result: T; done: Promise<void> } {
    if (this.pending) return { result: fn(), done: Promise.resolve() };
    const pending: Promise<void>[] = [];
    this.pending = pending;
    try {
      return { result: fn(), done: Promise.all(pending).then(() => undefined) };
    } catch (e) {
      for (const p of pending) p.catch(() => undefined); // the call's own error is the one to report
      throw e;
    } finally {
      this.pending = undefined;
    }
  }
}
