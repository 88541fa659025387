// Reference CUDA C++ for the SGEMM row of scripts/gpu-bench (the register and
// spill columns; nothing here is launched): c = a * b with 16 x 16 shared-memory
// tiles and one output per thread, the algorithm of the Kuiper kernel it stands
// beside (test/Corpus/kp/stretch/matmul_tiled.kp, examples/kernelbench/01_...).

constexpr int kTile = 16;

extern "C" __global__ void __launch_bounds__(kTile * kTile)
matmul(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
       int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  int ty = threadIdx.y, tx = threadIdx.x;
  int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    as[ty][tx] = (row < m && p0 + tx < k) ? a[(long long)row * k + p0 + tx] : 0.0f;
    bs[ty][tx] = (p0 + ty < k && col < n) ? b[(long long)(p0 + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kTile; ++q)
      acc += as[ty][q] * bs[q][tx];
    __syncthreads();
  }
  if (row < m && col < n)
    c[(long long)row * n + col] = acc;
}
