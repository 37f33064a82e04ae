#!/usr/bin/env node
// Speed-up over GPU 0 from the JSON rows of `myriad bench <op> --devices all --call-ms ...`
// (scripts/multi-gpu-scaling.sh): one line per op, n, call length, host-outputs mode and row mode.
//   node scripts/multi-scaling-summary.mjs out/scaling-*.json
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const lines = [['op', 'n', 'target ms', 'outputs', 'mode', 'batch', 'GPUs', 'ms on GPU 0', 'ms on all', 'speed-up', 'GPUs used', '% aggregate roofline'].join(' | ')];
for (const file of process.argv.slice(2)) {
  const outputs = basename(file).replace(/\.json$/, '').split('-').slice(2).join('-');
  const rows = JSON.parse(readFileSync(file, 'utf8'));
  const one = (r, mode) => rows.find((x) => x.op === r.op && x.n === r.n && x.batch === r.batch && x.devices.split(',').length === 1 && x.mode === mode);
  for (const r of rows) {
    if (r.devices.split(',').length === 1) continue;
    const base = one(r, r.mode === 'host-auto' ? 'host-start' : r.mode);
    if (!base) continue;
    lines.push([r.op, r.n, r.targetMs ?? '', outputs, r.mode, r.batch, r.devices, base.ms.toFixed(3), r.ms.toFixed(3), (base.ms / r.ms).toFixed(2),
      r.gpusUsed ?? '', r.aggregateRoofline === undefined ? '' : r.aggregateRoofline.toFixed(1)].join(' | '));
  }
}
console.log(lines.join('\n'));
