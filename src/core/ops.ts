/**
 * The backend contract: one method per operation, each taking that operation's validated request
 * (the request types and the operation list are in op-specs.ts, one entry per operation).
 */
import type { IntStorage, Storage } from './storage.js';
import { OP_NAMES } from './op-specs.js';
import type { OpName, Requests } from './op-specs.js';

export type * from './op-specs.js';
export { OP_NAMES } from './op-specs.js';

/** The operations of a backend, one method per request. */
export type Operations<S = Storage, I = IntStorage> = { readonly [K in keyof Requests]: (r: Requests<S, I>[K]) => void };

/**
 * One backend: every operation, synchronous from the caller's point of view on the host (CPU),
 * or enqueued in stream order (CUDA: the context waits where the user asks it to).
 */
export type Backend<S = Storage, I = IntStorage> = Operations<S, I> & { readonly name: string };

/**
 * A backend that dispatches every operation by name to one `run(op, request)`: the CUDA backends
 * (one GPU, several GPUs) stage, split or fall back the same way for every operation.
 */
export abstract class DispatchingBackend<S = Storage, I = IntStorage> {
  abstract readonly name: string;
  protected abstract run(op: OpName, request: Record<string, unknown>): void;

  constructor() {
    const self = this as unknown as Record<OpName, (request: Record<string, unknown>) => void>;
    for (const name of OP_NAMES) self[name] = (request) => this.run(name, request);
  }
}
// The methods the constructor installs, one per operation.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface DispatchingBackend<S = Storage, I = IntStorage> extends Operations<S, I> {}
