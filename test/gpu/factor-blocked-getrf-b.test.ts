/** The GPU factorization cases of part 'blocked-getrf-b' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('blocked-getrf-b');
