/** Several GPUs of one host behind one backend; the context and open(): src/api/multi-*.ts. */
export { MultiDeviceBackend, type MultiDeviceOptions } from './backend.js';
export { DeviceFailure, type Lane, type LaneFailure } from './lane.js';
export { parseDevices, resolveDevices, type DeviceSelection } from './open.js';
export { ShardedArray, isSharded, type Shard, type ShardLayout } from './sharded.js';
export { checkWeights, modelWeights, splitBatch, splitCounts, weightsFromTimes, type Part } from './split.js';
export { checkSpread, gpusFor, weightsOnFastest, type Spread } from './crossover.js';
