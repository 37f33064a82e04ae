/** The GPU factorization cases of part 'blocked-getrf-a' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('blocked-getrf-a');
