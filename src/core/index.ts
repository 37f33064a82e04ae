export * from './errors.js';
export * from './dtype.js';
export * from './enums.js';
export * from './storage.js';
export * from './batch.js';
export * from './device-batch.js';
export * from './ops.js';
export * from './counts.js';
export { describeInfo, INFO_OPS, type InfoOp } from './info.js';
