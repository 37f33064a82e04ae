/**
 * A variable batch that no one route takes whole because some of its members lie beyond every own
 * design (syev of order above 512; gesvd beyond the Jacobi and bidiagonal designs), split in two:
 * the members an own candidate takes run as one variable batch on the first own candidate that
 * takes them all (as the router would choose for them alone), the others on the capability route
 * (a vendor dense routine, one matrix per call). Without the split the whole batch would go to the
 * capability route, one vendor call per member however small.
 *
 * Members are told apart by their shape groups (the own designs' `covers` depends on the shape
 * only); info is gathered into each part's compact array and scattered back to the members' places
 * (common/shape-groups.ts `runParts`), so every per-matrix promise of the two routes holds per member.
 */
import { batchCount, type Batch } from '../core/batch.js';
import { MyriadError } from '../core/errors.js';
import type { OpName } from '../core/ops.js';
import { batchFields, groupRequest, hasVariableBatch, partRequest, runParts, shapeGroups } from './kernels/common/shape-groups.js';
import type { Candidate, DeviceRequest } from './router.js';
import type { GpuDevice } from './runtime/types.js';

type Fields = Record<string, unknown>;

/** The members of a request the own candidates take (by shape group), and the rest, each in batch order. */
interface Split { readonly own: number[]; readonly beyond: number[] }

function splitMembers<K extends OpName>(op: K, r: Fields, own: readonly Candidate<K>[], dev: GpuDevice): Split {
  const groups = shapeGroups(batchFields(op, r).map((f) => r[f] as Batch<unknown>));
  const ownMembers: number[] = [], beyond: number[] = [];
  for (const members of groups) {
    const one = groupRequest(op, r, [members[0]!]) as unknown as DeviceRequest<K>;
    (own.some((c) => c.covers === undefined || c.covers(one, dev)) ? ownMembers : beyond).push(...members);
  }
  const byPlace = (x: number, y: number): number => x - y;
  return { own: ownMembers.sort(byPlace), beyond: beyond.sort(byPlace) };
}

/** The first of `own` that takes the request whole. */
function firstTaking<K extends OpName>(own: readonly Candidate<K>[], r: DeviceRequest<K>, dev: GpuDevice): Candidate<K> | undefined {
  return own.find((c) => c.run !== undefined && (c.covers === undefined || c.covers(r, dev)));
}

/**
 * The candidate 'split' of `op`: it covers a request with a variable batch that has members on both
 * sides (the own part taken whole by one of `own`, the rest by `beyond`); it never enters a graph
 * (the capability route is a vendor library's).
 */
export function splitBeyondOwn<K extends OpName>(op: K, own: readonly Candidate<K>[], beyond: Candidate<K> & { readonly run: NonNullable<Candidate<K>['run']> }): Candidate<K> {
  const parts = (r: DeviceRequest<K>, dev: GpuDevice): { split: Split; ownRoute: Candidate<K> | undefined } | undefined => {
    const request = r as unknown as Fields;
    if (!hasVariableBatch(op, request) || batchCount(request[batchFields(op, request)[0]!] as Batch<unknown>) === 0) return undefined;
    const split = splitMembers(op, request, own, dev);
    if (split.own.length === 0 || split.beyond.length === 0) return undefined;
    const ownRoute = firstTaking(own, partRequest(op, request, split.own) as unknown as DeviceRequest<K>, dev);
    return { split, ownRoute };
  };
  return {
    name: 'split',
    capturable: false,
    covers: (r, dev) => {
      const p = parts(r, dev);
      return p !== undefined && p.ownRoute !== undefined && (beyond.covers === undefined || beyond.covers(partRequest(op, r as unknown as Fields, p.split.beyond) as unknown as DeviceRequest<K>, dev));
    },
    run: (dev, r) => {
      const p = parts(r, dev);
      if (p === undefined || p.ownRoute === undefined)
        throw new MyriadError('UNSUPPORTED', `${op}'s route 'split' takes a variable batch with members both inside and beyond the own designs; this request is not one`, 'force');
      const request = r as unknown as Fields;
      const ownRun = p.ownRoute.run!;
      runParts(op, dev, request, [p.split.own, p.split.beyond], (members, ints) => partRequest(op, request, members, ints),
        (part, i) => (i === 0 ? ownRun : beyond.run)(dev, part as unknown as DeviceRequest<K>));
    },
  };
}
