/**
 * Launching a one-block-per-matrix kernel over a group (the Jacobi block designs, the
 * tridiagonal syev): one block per matrix, dynamic shared memory, and where the plan keeps a
 * matrix in global memory a workspace slice of `work` elements per block, taken from the device's
 * workspace and reused chunk after chunk (the kernel gets the slice base and `first`, the chunk's
 * first matrix, between its operands `head` and its `tail` arguments).
 */
import type { DType } from '../../../core/dtype.js';
import { arg, type DeviceArray, type GpuDevice, type Kernel, type KernelArg } from '../../runtime/types.js';
import { CudaError } from '../../runtime/errors.js';
import { Workspace } from '../../runtime/workspace.js';
import { elementBytes } from './precision.js';

/**
 * The default floor of a chunk's workspace bytes and its size where the card cannot allocate
 * `cardChunkBytes` (`PerMatrixWork.fallbackBytes` changes both); the split syev's fixed chunk.
 */
/** CUDA's largest blockDim.z (a block's matrices, where they stack along z). */
export const MAX_BLOCK_Z = 64;

export const BLOCK_WORKSPACE_BYTES = 256 << 20;

/**
 * The inverse-iteration designs' floor and fallback (real syev, complex heev): 1 GiB, 68 matrices of
 * n = 512. On an H200 with 1 GiB chunks 512 x 264 took 139 ms against 79 in one chunk (XsyevBatched
 * 107), 384 x 300 65.9 against 45.6, 256 x 600 45.4 against 31.8 (scripts/probe/stein-chunks.mjs).
 */
export const STEIN_CHUNK_BYTES = 2 ** 30;

/**
 * Workspace bytes a chunk of one-block-per-matrix launches may take on `dev`, for matrices of
 * `matrixBytes` each: enough for CHUNK_WAVES blocks an SM, at most an eighth of the card's memory
 * (8.3 GB for n = 512 on an H200's 132 SMs with the inverse-iteration syev's 15.7 MB a matrix). Each
 * launch of such a design lasts about one matrix's latency-bound chain whatever the chunk's size, so a
 * group cut into chunks pays the chain once per chunk, and a chunk of fewer matrices than the card has
 * SMs leaves SMs idle. The workspace keeps what a call took (until the context is disposed).
 */
export function cardChunkBytes(dev: GpuDevice, matrixBytes: number): number {
  return Math.min(Math.floor(dev.info.totalMemoryBytes / 8), CHUNK_WAVES * dev.info.smCount * matrixBytes);
}

/** Matrices an SM a chunk may hold (cardChunkBytes). */
const CHUNK_WAVES = 4;

export interface PerMatrixLaunch extends PerMatrixWork {
  readonly threads: number;
  readonly sharedBytes: number;
}

export function launchPerMatrix(dev: GpuDevice, k: Kernel, l: PerMatrixLaunch, count: number, head: readonly KernelArg[], tail: readonly KernelArg[]): void {
  const { threads, sharedBytes } = l;
  perMatrixChunks(dev, l, count, (ws, first, blocks) => {
    k.launch({ grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes }, [...head, arg.ptr(ws === undefined ? 0n : ws.ptr), arg.i64(first), ...tail]);
  });
}

/** What `perMatrixChunks` needs: `work` elements of `workDtype` per matrix, named by `what`. */
export interface PerMatrixWork {
  /** Workspace elements per block (0: none). */
  readonly work: number;
  /** The workspace's element type. */
  readonly workDtype: DType;
  /** What the slices are, for the workspace's error message. */
  readonly what: string;
  /** At most this many matrices a chunk (a grid's y or z extent, 65535), where the work allows more. */
  readonly maxChunk?: number;
  /** Workspace bytes a chunk may take (else the larger of cardChunkBytes and the fallback below). */
  readonly maxBytes?: number;
  /**
   * Where the device cannot allocate chunks of the bytes above (out of memory), chunks of at most
   * these bytes instead (default BLOCK_WORKSPACE_BYTES where `maxBytes` is absent; with `maxBytes`
   * given and this absent, the out-of-memory error stands).
   */
  readonly fallbackBytes?: number;
}

const isOutOfMemory = (e: unknown): boolean => e instanceof CudaError && e.status === 'CUDA_ERROR_OUT_OF_MEMORY';

/**
 * The chunks of a group whose matrices each need a workspace slice: `body(ws, first, blocks)` per
 * chunk of `blocks` matrices from `first`, `ws` the chunk's slices (undefined where `work` is 0),
 * at most `maxBytes` of workspace (else cardChunkBytes, smaller where the card cannot allocate it),
 * reused chunk after chunk in stream order.
 */
export function perMatrixChunks(dev: GpuDevice, l: PerMatrixWork, count: number, body: (ws: DeviceArray | undefined, first: number, blocks: number) => void): void {
  const { work, workDtype } = l;
  const most = Math.min(count, l.maxChunk ?? count);
  const chunkOf = (bytes: number): number => (work === 0 ? most : Math.max(1, Math.min(most, Math.floor(bytes / (work * elementBytes(workDtype))))));
  const fallbackBytes = l.fallbackBytes ?? (l.maxBytes === undefined ? BLOCK_WORKSPACE_BYTES : undefined);
  let chunk = chunkOf(l.maxBytes ?? Math.max(fallbackBytes!, cardChunkBytes(dev, work * elementBytes(workDtype))));
  // From the device's workspace: chunks reuse it in stream order, and the next call may too.
  const frame = Workspace.of(dev).frame();
  try {
    const take = (blocks: number): DeviceArray => frame.take(workDtype, blocks * work, `${l.what} (${blocks} blocks of ${work} elements)`);
    let ws: DeviceArray | undefined;
    if (work !== 0) {
      try {
        ws = take(chunk);
      } catch (e) {
        // A failed allocation leaves the workspace as it was: smaller chunks where the caller allows them.
        const fallback = fallbackBytes === undefined ? chunk : chunkOf(fallbackBytes);
        if (!isOutOfMemory(e) || fallback >= chunk) throw e;
        chunk = fallback;
        ws = take(chunk);
      }
    }
    for (let first = 0; first < count; first += chunk) body(ws, first, Math.min(chunk, count - first));
  } finally {
    frame.end();
  }
}
