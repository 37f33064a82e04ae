/** The GPU factorization cases of part 'batches' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('batches');
