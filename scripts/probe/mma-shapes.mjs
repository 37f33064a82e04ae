// The mma kernel's tile shapes as the probes name them: `32x32x8w2x2s4` on the command line (SHAPES=...,
// d: fragments double-buffered, bN: N blocks an SM asked of ptxas) and `32x32x8 w2x2 s4` in tables.

/** The shapes of a comma-separated SHAPES list. */
export function parseMmaShapes(text) {
  return text.split(',').map((t) => {
    const m = /^(\d+)x(\d+)x(\d+)w(\d+)x(\d+)s(\d+)(d?)(?:b(\d+))?$/.exec(t);
    if (!m) throw new Error(`bad shape ${t}: expected e.g. 32x32x8w2x2s4, 32x32x8w2x2s4d or 32x32x8w2x2s4b8`);
    return { bm: +m[1], bn: +m[2], bk: +m[3], wm: +m[4], wn: +m[5], stages: +m[6], ...(m[7] ? { doubleBuffer: true } : {}), ...(m[8] ? { minBlocks: +m[8] } : {}) };
  });
}

/** A shape's name in a table's header. */
export const mmaShapeTag = (s) => `${s.bm}x${s.bn}x${s.bk} w${s.wm}x${s.wn} s${s.stages}${s.doubleBuffer ? ' d' : ''}${s.minBlocks ? ` b${s.minBlocks}` : ''}`;
