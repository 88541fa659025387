// Reference CUDA C++ for the elementwise rows of scripts/gpu-bench: the same
// computation and launch shape as examples/{elu,gelu,hardtanh,sigmoid,saxpy}.kp,
// written as a CUDA programmer would (restrict pointers, launch bounds). The
// benchmark compiles this file with `nvcc -arch=sm_90 -Xptxas -v` only for the
// register and spill columns; nothing here is launched.
//
// nvcc's defaults differ from Kuiper's lowering in one respect: nvcc contracts
// a*b+c into an fma (-fmad=true), Kuiper keeps mul.rn/add.rn (docs/abi.md).

extern "C" __global__ void __launch_bounds__(256)
elu_fwd(const float *__restrict__ x, float *__restrict__ y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = v > 0.0f ? v : alpha * (expf(v) - 1.0f);
  }
}

extern "C" __global__ void __launch_bounds__(256)
gelu_fwd(const float *__restrict__ x, float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = v * 0.5f * (1.0f + erff(v * 0.70710678118654752f));
  }
}

// Grid-stride loops over a capped grid, as in hardtanh.kp and sigmoid.kp.
extern "C" __global__ void __launch_bounds__(256)
hardtanh(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = fminf(fmaxf(x[i], -1.0f), 1.0f);
}

extern "C" __global__ void __launch_bounds__(256)
sigmoid_fwd(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = 1.0f / (1.0f + expf(-x[i]));
}

// Four consecutive elements per thread, 128 threads per block (saxpy.kp).
extern "C" __global__ void __launch_bounds__(128)
saxpy4(const float *__restrict__ x, float *__restrict__ y, int n, float a) {
  int base = (blockIdx.x * 128 + threadIdx.x) * 4;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int i = base + k;
    if (i < n)
      y[i] = a * x[i] + y[i];
  }
}
