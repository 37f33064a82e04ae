/** Several GPUs of one host behind one context (issue 6). */
export { MultiDeviceBackend, type MultiDeviceOptions } from './backend.js';
export { MultiDeviceContext } from './context.js';
export { DeviceFailure, type Lane, type LaneFailure } from './lane.js';
export { openMultiDevice, parseDevices, resolveDevices, type DeviceSelection } from './open.js';
export { ShardedArray, isSharded, type Shard, type ShardLayout } from './sharded.js';
export { checkWeights, modelWeights, splitBatch, splitCounts, weightsFromTimes, type Part } from './split.js';
