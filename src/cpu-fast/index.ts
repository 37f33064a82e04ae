/** The fast CPU backend's public knobs. */
export { cpuThreads, setCpuThreads } from './threads/pool.js';
