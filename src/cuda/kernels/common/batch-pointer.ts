/**
 * How a kernel finds matrix `i` of an operand, for the two batch forms a kernel sees:
 * - 'strided': one base pointer; matrix i starts at `X + offsetX + i * strideX`;
 * - 'pointer': a device array of int64 pointers, one per matrix (the pointer-array form);
 *   matrix i starts at `X[i] + offsetX` (the launcher folds per-matrix offsets into the pointers).
 * Both forms take the same four kernel arguments (pointer, offset, stride, ld), so a launcher
 * passes one argument list whatever the form; 'pointer' ignores the stride.
 */

export type OperandKind = 'strided' | 'pointer';

/** Operand names as kernel parameters (T: the Householder scalars tau of QR). */
export type OperandName = 'A' | 'B' | 'C' | 'W' | 'S' | 'U' | 'V' | 'T';

/** How one operand's matrices are found, as the generated code sees it. */
export interface OperandLayout {
  readonly kind: OperandKind;
  /**
   * Strided and densely packed (ld = rows, stride = rows * cols): consecutive matrices form one
   * contiguous span, loaded (or stored) as one run of consecutive elements (small kernel only).
   */
  readonly dense: boolean;
}

/** Kernel-name fragment of an operand's form. */
export const kindTag = (k: OperandKind): string => (k === 'strided' ? 'st' : 'pa');

/**
 * The signature fragment of one operand: `const real* __restrict__ A, long long offsetA, long long strideA, int ldA`.
 * `type`: the element type where the data's type is not the kernel's `real` (a kernel that computes in a wider type).
 * `restrict` false: the operand may alias another (a product written in place of one of its inputs).
 */
export function operandParameters(name: OperandName, kind: OperandKind, writable: boolean, type = 'real', restrict = true): string {
  const elem = writable ? type : `const ${type}`;
  const qualifier = restrict ? ' __restrict__' : '';
  const pointer = kind === 'strided' ? `${elem}*${qualifier} ${name}` : `${elem}* const*${qualifier} ${name}`;
  return `${pointer}, long long offset${name}, long long stride${name}, int ld${name}`;
}

/** An expression of type `(const) real*`: the first element of matrix `index` of the operand. */
export function matrixPointer(name: OperandName, kind: OperandKind, index: string): string {
  return kind === 'strided'
    ? `(${name} + offset${name} + (long long)(${index}) * stride${name})`
    : `(${name}[${index}] + offset${name})`;
}

/**
 * An expression for the first element of the contiguous span that holds matrices `first`,
 * `first + 1`, ... of a densely packed strided operand (ld = rows, stride = rows * cols).
 */
export function spanPointer(name: OperandName, first: string): string {
  return `(${name} + offset${name} + (long long)(${first}) * stride${name})`;
}
