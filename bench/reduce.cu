// Reference CUDA C++ for the row-reduction rows of scripts/gpu-bench (the
// register and spill columns; nothing here is launched): a sum over the last
// dimension and a two-kernel softmax over it, with the kernel names and
// parameters of the Kuiper kernels they stand beside
// (test/Corpus/kp/stretch/row_sum.kp, examples/kernelbench/23_softmax.kp).
// Straightforward good CUDA: one block per row, strided coalesced loads, a
// shared-memory tree down to one warp and shuffles for the last 32 values.

constexpr int kBlock = 256;

/// The block's sum of `v`, valid in thread 0.
__device__ float blockSum(float v, float *partial) {
  int t = threadIdx.x;
  partial[t] = v;
  __syncthreads();
  for (int stride = kBlock / 2; stride >= 32; stride /= 2) {
    if (t < stride)
      partial[t] += partial[t + stride];
    __syncthreads();
  }
  float s = t < 32 ? partial[t] : 0.0f;
  for (int d = 16; d > 0; d /= 2)
    s += __shfl_down_sync(0xffffffffu, s, d);
  return s;
}

/// The block's maximum of `v` (NaN propagates), valid in every thread.
__device__ float blockMax(float v, float *partial) {
  int t = threadIdx.x;
  partial[t] = v;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      float o = partial[t + stride];
      partial[t] = (o > partial[t] || o != o) ? o : partial[t];
    }
    __syncthreads();
  }
  float m = partial[0];
  __syncthreads();
  return m;
}

extern "C" __global__ void __launch_bounds__(kBlock)
row_sum(const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {
  __shared__ float partial[kBlock];
  const float *row = x + (long long)blockIdx.x * cols;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < cols; j += kBlock)
    acc += row[j];
  float s = blockSum(acc, partial);
  if (threadIdx.x == 0)
    y[blockIdx.x] = s;
}

// m[r] = max over the row, s[r] = sum of exp(x - m[r]); one block per row.
extern "C" __global__ void __launch_bounds__(kBlock)
softmax_stats(const float *__restrict__ x, float *__restrict__ m, float *__restrict__ s,
              int rows, int cols) {
  __shared__ float partial[kBlock];
  const float *row = x + (long long)blockIdx.x * cols;
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += kBlock) {
    float v = row[j];
    mx = (v > mx || v != v) ? v : mx;
  }
  mx = blockMax(mx, partial);
  float acc = 0.0f;
  for (int j = threadIdx.x; j < cols; j += kBlock)
    acc += expf(row[j] - mx);
  float sum = blockSum(acc, partial);
  if (threadIdx.x == 0) {
    m[blockIdx.x] = mx;
    s[blockIdx.x] = sum;
  }
}

extern "C" __global__ void __launch_bounds__(kBlock)
softmax_normalize(const float *__restrict__ x, const float *__restrict__ m,
                  const float *__restrict__ s, float *__restrict__ y, int rows, int cols) {
  int r = blockIdx.y;
  int j = blockIdx.x * kBlock + threadIdx.x;
  if (j < cols) {
    long long at = (long long)r * cols + j;
    y[at] = expf(x[at] - m[r]) / s[r];
  }
}
