/**
 * The host harnesses' clusters kernel (generate-stein.ts stage 'clusters', run after the vectors
 * kernel where a plan has one): its source written to `dir` as clusters.cu and the g++ defines that
 * include and launch it (CLUSTERS, the entry; CLUSTER_THREADS, its block).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tridiagSteinSource, type TridiagSteinParams } from '../../src/cuda/kernels/tridiag/index.js';

export function clustersKernelDefines(dir: string, clusters: TridiagSteinParams | undefined): string[] {
  if (clusters === undefined) return [];
  const src = tridiagSteinSource(clusters);
  writeFileSync(join(dir, 'clusters.cu'), src.source);
  return [`-DCLUSTERS=${src.entry}`, `-DCLUSTER_THREADS=${clusters.threads}`];
}
