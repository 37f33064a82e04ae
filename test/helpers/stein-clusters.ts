/**
 * The stein clusters kernel in tests: the host harnesses' clusters kernel (generate-stein.ts stage 'clusters', run after the vectors
 * kernel where a plan has one): its source written to `dir` as clusters.cu and the g++ defines that
 * include and launch it (CLUSTERS, the entry; CLUSTER_THREADS, its block).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tridiagSteinSource, type SteinKernels, type TridiagSteinParams } from '../../src/cuda/kernels/tridiag/index.js';

export function clustersKernelDefines(dir: string, clusters: TridiagSteinParams | undefined): string[] {
  if (clusters === undefined) return [];
  const src = tridiagSteinSource(clusters);
  writeFileSync(join(dir, 'clusters.cu'), src.source);
  return [`-DCLUSTERS=${src.entry}`, `-DCLUSTER_THREADS=${clusters.threads}`];
}

/** A recorded launch as the launcher tests keep them: the kernel's entry, its grid and block, its arguments. */
interface RecordedLaunch {
  readonly entry: string;
  readonly config: { readonly grid: readonly number[]; readonly block: readonly number[] };
  readonly args: readonly { value: unknown }[];
}

/**
 * Each workspace chunk's clusters launch (chunks as [first matrix, matrices]) right after its vectors
 * launch with the same arguments: the plan's entry, a block a matrix of the chunk, the group's count.
 */
export function assertClustersAfterVectors(launches: readonly RecordedLaunch[], stein: SteinKernels, chunks: readonly (readonly [number, number])[], count: number): void {
  const num = (x: { value: unknown } | undefined): number => Number(x!.value);
  const clusters = launches.filter((x) => x.entry.startsWith('syev_stein_clusters_'));
  assert.deepEqual(clusters.map((x) => [x.entry, x.config.grid, x.config.block, num(x.args[1]), num(x.args[2])]),
    chunks.map(([first, blocks]) => [tridiagSteinSource(stein.clusters!).entry, [blocks, 1, 1], [stein.clusters!.threads, 1, 1], first, count]));
  for (const c of clusters) {
    const v = launches[launches.indexOf(c) - 1]!;
    assert.equal(v.entry, tridiagSteinSource(stein.vectors!).entry);
    assert.deepEqual(c.args, v.args);
  }
}
