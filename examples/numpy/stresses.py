"""numpy equivalent of examples/stresses.ts. python3 examples/numpy/stresses.py [tensors]"""
import sys, time
import numpy as np

tensors = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
rng = np.random.default_rng(2)
g = rng.normal(0, 50, (tensors, 3, 3))
sigma = g + g.mT + 100 * np.eye(3)
t0 = time.perf_counter(); w, v = np.linalg.eigh(sigma); ms_eigh = (time.perf_counter() - t0) * 1e3
t0 = time.perf_counter(); w2 = np.linalg.eigvalsh(sigma); ms_vals = (time.perf_counter() - t0) * 1e3
print(f"numpy stresses: {tensors} tensors: eigh (values and directions) {ms_eigh:.1f} ms, eigvalsh (values) {ms_vals:.1f} ms")
