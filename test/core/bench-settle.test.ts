/**
 * `myriad bench` waits for the background compiles of optimised builds after its warm-up calls and
 * before its timed ones (bench/run.ts): compile workers that take the host's cores would otherwise
 * delay launches between a call's CUDA events. A CPU context stands in for a device one, its
 * `deviceBackend` replaced by one that records when it is asked to settle.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/api/open.js';
import type { Context } from '../../src/api/context.js';
import { runBench } from '../../src/bench/run.js';
import { BENCH_WARMUP } from '../../src/core/stats.js';

test('bench settles background builds once a row, after the warm-up and before the timed calls', () => {
  const events: string[] = [];
  const cpu = open({ backend: 'cpu' });
  const ctx = new Proxy(cpu, {
    get(target, key) {
      if (key === 'deviceBackend') return { settleBuilds: () => events.push('settle'), moduleStats: () => undefined };
      if (key === 'time') return (run: () => void) => { events.push('time'); return target.time(run); };
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Context;
  const repeats = 3;
  runBench(ctx, { op: 'gemm', dtype: 'float64', sizes: [4, 8], batch: 4, repeats });
  const rows = events.join(' ').split('settle');
  assert.equal(rows.length, 3, 'one settle a row');
  // Row 1: the first call, the warm-up calls, then the settle; the timed calls follow it.
  const before = rows[0]!.trim().split(' ').length;
  assert.ok(before >= 1 + BENCH_WARMUP.calls, `${before} calls before the first settle`);
  const after = rows[1]!.trim().split(' ');
  assert.ok(after.length >= repeats, 'the timed calls come after the settle');
});
