/**
 * The checked-in generated API (src/api/*.generated.ts) is what scripts/generate-api.ts writes
 * from the op specs: an operation added to core/op-specs.ts without regenerating fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateApi } from '../../scripts/generate-api.js';
import { OP_NAMES } from '../../src/core/op-specs.js';
import { Context, cpuContext } from '../../src/api/context.js';
import * as myriad from '../../src/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('the generated API files are up to date (npm run build && node dist/scripts/generate-api.js)', () => {
  for (const [path, text] of Object.entries(generateApi())) assert.equal(readFileSync(ROOT + path, 'utf8'), text, path);
});

test('every operation is a Context method, an *Async form, a prepared call and a top-level function', () => {
  const functions = myriad as unknown as Record<string, unknown>;
  for (const op of OP_NAMES) {
    assert.equal(typeof (Context.prototype as unknown as Record<string, unknown>)[op], 'function', op);
    assert.equal(typeof (Context.prototype as unknown as Record<string, unknown>)[`${op}Async`], 'function', `${op}Async`);
    assert.equal(typeof cpuContext.prepare[op], 'function', `prepare.${op}`);
    assert.equal(typeof functions[op], 'function', `top-level ${op}`);
  }
});
