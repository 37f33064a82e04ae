"""numpy equivalent of examples/fits.ts. python3 examples/numpy/fits.py [fits]
numpy's lstsq takes one 2-D a: the shared A fits every series at once as columns of b
(b [50, fits]); a stack of different a's would need a Python loop (timed too, on 1000 fits)."""
import sys, time
import numpy as np

fits = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
samples = 50
rng = np.random.default_rng(3)
t = np.linspace(-1, 1, samples)
A = np.stack([np.ones_like(t), t, t ** 2, t ** 3], axis=1)
c = rng.normal(0, 1, (fits, 4, 1))
y = A @ c + rng.normal(0, 0.01, (fits, samples, 1))
t0 = time.perf_counter(); x = np.linalg.lstsq(A, y[:, :, 0].T, rcond=None)[0]; ms_shared = (time.perf_counter() - t0) * 1e3
loop = min(fits, 1000)
t0 = time.perf_counter()
for k in range(loop):
    np.linalg.lstsq(A, y[k], rcond=None)
ms_loop = (time.perf_counter() - t0) * 1e3 * fits / loop
print(f"numpy fits: {fits} cubic fits of {samples} samples: lstsq with shared A (b as columns) {ms_shared:.1f} ms, lstsq per fit in a loop {ms_loop:.1f} ms (extrapolated from {loop})")
