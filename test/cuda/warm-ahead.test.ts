/**
 * warmAhead's contract where it can be checked without a GPU: its arguments are checked before
 * anything native, and a machine without a usable GPU gets undefined (nothing to compile) without
 * the planning callback running. The GPU behaviour (builds waited for, not compiled again) is in
 * test/gpu/runtime.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warmAhead } from '../../src/api/warm-ahead.js';
import { MyriadError } from '../../src/core/errors.js';
import { probeCuda } from '../../src/cuda/runtime/probe.js';

test('warmAhead checks its arguments, naming them', () => {
  assert.throws(() => warmAhead(42 as unknown as () => void), (e: unknown) => e instanceof MyriadError && e.argument === 'record');
  for (const device of [-1, 1.5, Number.NaN, '0']) {
    assert.throws(() => warmAhead(() => {}, device as number), (e: unknown) => e instanceof MyriadError && e.argument === 'device', String(device));
  }
});

test('warmAhead without a usable GPU: undefined, the calls not planned', { skip: probeCuda().usable ? 'a GPU is usable here' : false }, () => {
  let planned = false;
  assert.equal(warmAhead(() => { planned = true; }), undefined);
  assert.equal(planned, false);
});
