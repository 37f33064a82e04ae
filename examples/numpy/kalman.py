"""numpy equivalent of examples/kalman.ts: one predict + update step for a bank of filters.
python3 examples/numpy/kalman.py [filters] [steps]"""
import sys, time
import numpy as np

filters = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
rng = np.random.default_rng(1)
dt = 0.1
F = np.array([[1, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]], float)
H = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], float)
Q = 1e-3 * np.eye(4)
R = 0.05 ** 2 * np.eye(2)
truth = np.array([0, 0, 1, 0.5])[:, None] + rng.normal(0, 0.5, (filters, 4, 1))
x = np.zeros((filters, 4, 1))
P = np.broadcast_to(10 * np.eye(4), (filters, 4, 4)).copy()
times = []
for _ in range(steps):
    truth = F @ truth
    z = H @ truth + rng.normal(0, 0.05, (filters, 2, 1))
    t0 = time.perf_counter()
    x = F @ x
    P = F @ P @ F.T + Q
    HP = H @ P
    S = HP @ H.T + R
    KT = np.linalg.solve(S, HP)  # S K^T = H P (numpy has no batched Cholesky solve)
    x = x + KT.mT @ (z - H @ x)
    P = P - KT.mT @ HP
    times.append((time.perf_counter() - t0) * 1e3)
err = x - truth
print(f"numpy kalman: {filters} filters, {steps} steps: {np.median(times):.2f} ms per step (median), rms state error {np.sqrt(np.mean(err ** 2)):.3f}")
