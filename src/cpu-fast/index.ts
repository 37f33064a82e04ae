/** The fast CPU backend's public knobs. */
export { cpuThreads, setCpuThreads } from './threads/count.js';
