# Which kernels cuBLAS runs for float64 products on this card, for Nsight Compute to name and measure
# (tile, stages, warps and mma shape are in the kernel's name; registers, shared memory and pipe
# utilisation in its sections). Needs PyTorch with CUDA. Run:
#   ncu --clock-control none -k regex:"gemm|xmma|cutlass" -c 8 --section LaunchStats \
#     --section SpeedOfLight --section Occupancy --section WarpStateStats \
#     --section ComputeWorkloadAnalysis python3 scripts/probe/cublas-gemm-kernels.py
import torch

torch.backends.cuda.matmul.allow_tf32 = False
# (batch, n, k): one C of 4096 (k 4096), one of 8192 at k 512 (a trailing update), batched squares.
for (b, n, k) in [(1, 4096, 4096), (1, 8192, 512), (635, 256, 256), (2543, 128, 128)]:
    a = torch.randn(b, n, k, dtype=torch.float64, device='cuda')
    bb = torch.randn(b, k, n, dtype=torch.float64, device='cuda')
    for _ in range(2):
        c = torch.bmm(a, bb) if b > 1 else a[0] @ bb[0]
    torch.cuda.synchronize()
    print('done', b, n, k, flush=True)
