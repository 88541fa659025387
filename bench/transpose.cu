// Reference CUDA C++ for the transpose row of scripts/gpu-bench (the register
// and spill columns; nothing here is launched): examples/transpose.kp's
// algorithm, the classic padded 32 x 33 shared tile with 32 x 8 threads moving
// four elements each.

extern "C" __global__ void __launch_bounds__(256)
transpose(const float *__restrict__ a, float *__restrict__ b, int rows, int cols) {
  __shared__ float tile[32][33];
  int bx = blockIdx.x * 32, by = blockIdx.y * 32;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int r = by + threadIdx.y + 8 * k, c = bx + threadIdx.x;
    if (r < rows && c < cols)
      tile[threadIdx.y + 8 * k][threadIdx.x] = a[(long long)r * cols + c];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int r = bx + threadIdx.y + 8 * k, c = by + threadIdx.x;
    if (r < cols && c < rows)
      b[(long long)r * rows + c] = tile[threadIdx.x][threadIdx.y + 8 * k];
  }
}
