/**
 * CUDA graphs by stream capture: the work `fn` enqueues on a device's stream is recorded (not
 * run) between cuStreamBeginCapture and cuStreamEndCapture, instantiated once, and launched
 * again by `replay()` with one cuGraphLaunch. Relaxed capture mode: the thread may still allocate
 * while recording. The caller makes sure nothing in `fn` synchronises, copies from pageable host
 * memory or loads a module (CudaDevice refuses those while capturing; see Context.capture).
 */
import { MyriadError } from '../../core/errors.js';
import type { DeviceContext } from './context.js';
import { CU_STREAM_CAPTURE_MODE_RELAXED, type CudaGraphApi, type CUgraph, type CUgraphExec } from './ffi-cuda.js';
import type { DeviceGraph } from './types.js';

const USE_NODE_PRIORITY = 8;
const CUDA_ERROR_INVALID_VALUE = 1;

export class CudaGraph implements DeviceGraph {
  private exec: CUgraphExec | null;

  constructor(private readonly context: DeviceContext, private readonly api: CudaGraphApi, exec: CUgraphExec, private graph: CUgraph | null) {
    this.exec = exec;
  }

  /** Enqueues the recorded work on the stream. */
  launch(): void {
    if (this.exec === null) throw new MyriadError('DISPOSED', 'captured graph used after dispose()');
    this.context.activate();
    this.context.check(this.api.cuGraphLaunch(this.exec, this.context.stream), 'cuGraphLaunch');
  }

  dispose(): void {
    if (this.exec === null) return;
    if (this.context.alive) {
      this.context.activate();
      this.api.cuGraphExecDestroy(this.exec);
      if (this.graph) this.api.cuGraphDestroy(this.graph);
    }
    this.exec = null;
    this.graph = null;
  }
}

/** Records what `fn` enqueues on the context's stream into an instantiated graph. */
export function captureGraph(context: DeviceContext, api: CudaGraphApi | undefined, fn: () => void): CudaGraph {
  if (!api) throw new MyriadError('UNSUPPORTED', 'this CUDA driver has no stream capture (CUDA 11.4 or newer needed)', 'capture');
  context.activate();
  const stream = context.stream;
  context.check(api.cuStreamBeginCapture_v2(stream, CU_STREAM_CAPTURE_MODE_RELAXED), 'cuStreamBeginCapture_v2');
  const graph: [CUgraph | null] = [null];
  try {
    fn();
  } catch (e) {
    api.cuStreamEndCapture(stream, graph); // ends the (invalidated) capture; its error is the one thrown
    if (graph[0]) api.cuGraphDestroy(graph[0]);
    throw e;
  }
  context.check(api.cuStreamEndCapture(stream, graph), 'cuStreamEndCapture');
  const exec: [CUgraphExec | null] = [null];
  // CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY (CUDA 11.7+): a replay keeps the priorities the
  // kernels were captured with (the lookahead's side stream below the main one, runtime/device.ts).
  // A driver without the flag refuses it (CUDA_ERROR_INVALID_VALUE): then without it.
  let rc = api.cuGraphInstantiateWithFlags(exec, graph[0] as CUgraph, USE_NODE_PRIORITY);
  if (rc === CUDA_ERROR_INVALID_VALUE) rc = api.cuGraphInstantiateWithFlags(exec, graph[0] as CUgraph, 0);
  if (rc !== 0) {
    api.cuGraphDestroy(graph[0] as CUgraph);
    context.check(rc, 'cuGraphInstantiateWithFlags');
  }
  return new CudaGraph(context, api, exec[0] as CUgraphExec, graph[0]);
}
