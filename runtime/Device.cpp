//===- Device.cpp - CUDA driver API loaded at run time ---------------------===//
#include "kuiper/Device.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace kuiper {

namespace {
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUevent = void *;
using CUstream = void *;
using CUdeviceptr = unsigned long long;

constexpr int kJitErrorLogBuffer = 5;          // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogBufferSize = 6;      // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

/// The driver entry points Kuiper uses.
struct Driver {
  void *lib = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuCtxCreate_v2)(CUcontext *, unsigned, CUdevice);
  CUresult (*cuCtxDestroy_v2)(CUcontext);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree_v2)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy_v2)(CUevent);
};

template <typename F> bool sym(void *lib, const char *name, F &f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

/// Loads the driver once per process; returns null with `err` set on failure.
Driver *loadDriver(std::string &err) {
  static Driver d;
  static std::string loadErr;
  static bool tried = false;
  if (tried) {
    err = loadErr;
    return d.lib ? &d : nullptr;
  }
  tried = true;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    loadErr = err = "no CUDA driver: libcuda.so.1 not found";
    return nullptr;
  }
  bool ok = sym(lib, "cuInit", d.cuInit) &&
            sym(lib, "cuDeviceGetCount", d.cuDeviceGetCount) &&
            sym(lib, "cuDeviceGet", d.cuDeviceGet) &&
            sym(lib, "cuDeviceGetName", d.cuDeviceGetName) &&
            sym(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute) &&
            sym(lib, "cuCtxCreate_v2", d.cuCtxCreate_v2) &&
            sym(lib, "cuCtxDestroy_v2", d.cuCtxDestroy_v2) &&
            sym(lib, "cuCtxSetCurrent", d.cuCtxSetCurrent) &&
            sym(lib, "cuCtxSynchronize", d.cuCtxSynchronize) &&
            sym(lib, "cuModuleLoadDataEx", d.cuModuleLoadDataEx) &&
            sym(lib, "cuModuleUnload", d.cuModuleUnload) &&
            sym(lib, "cuModuleGetFunction", d.cuModuleGetFunction) &&
            sym(lib, "cuMemAlloc_v2", d.cuMemAlloc_v2) &&
            sym(lib, "cuMemFree_v2", d.cuMemFree_v2) &&
            sym(lib, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD_v2) &&
            sym(lib, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH_v2) &&
            sym(lib, "cuLaunchKernel", d.cuLaunchKernel) &&
            sym(lib, "cuGetErrorString", d.cuGetErrorString) &&
            sym(lib, "cuEventCreate", d.cuEventCreate) &&
            sym(lib, "cuEventRecord", d.cuEventRecord) &&
            sym(lib, "cuEventSynchronize", d.cuEventSynchronize) &&
            sym(lib, "cuEventElapsedTime", d.cuEventElapsedTime) &&
            sym(lib, "cuEventDestroy_v2", d.cuEventDestroy_v2);
  if (!ok) {
    loadErr = err = "CUDA driver libcuda.so.1 lacks an entry point Kuiper needs";
    dlclose(lib);
    return nullptr;
  }
  d.lib = lib;
  return &d;
}

std::string cuErr(Driver *d, CUresult r, const char *what) {
  const char *s = nullptr;
  if (d->cuGetErrorString)
    d->cuGetErrorString(r, &s);
  return std::string(what) + " failed: " + (s ? s : "CUDA error " + std::to_string(r));
}
} // namespace

struct DeviceImpl {
  Driver *drv = nullptr;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  std::string name;
  int major = 0, minor = 0;
  ~DeviceImpl() {
    if (ctx)
      drv->cuCtxDestroy_v2(ctx);
  }
};

Device::Device(std::unique_ptr<DeviceImpl> impl) : p(std::move(impl)) {}
Device::Device(Device &&) noexcept = default;
Device &Device::operator=(Device &&) noexcept = default;
Device::~Device() = default;

Result<Device> Device::open(int ordinal) {
  std::string err;
  // No driver, no device: what the machine lacks (code 2, as a request it
  // cannot meet), not an internal error.
  Driver *d = loadDriver(err);
  if (!d)
    return Error{err, 2};
  CUresult r = d->cuInit(0);
  if (r != 0)
    return Error{cuErr(d, r, "cuInit"), 2};
  int count = 0;
  if ((r = d->cuDeviceGetCount(&count)) != 0)
    return Error{cuErr(d, r, "cuDeviceGetCount"), 3};
  if (ordinal < 0 || ordinal >= count)
    return Error{"no CUDA device " + std::to_string(ordinal) + " (" +
                     std::to_string(count) + " found)",
                 2};
  auto impl = std::make_unique<DeviceImpl>();
  impl->drv = d;
  if ((r = d->cuDeviceGet(&impl->dev, ordinal)) != 0)
    return Error{cuErr(d, r, "cuDeviceGet"), 3};
  char name[256] = {0};
  d->cuDeviceGetName(name, sizeof name - 1, impl->dev);
  impl->name = name;
  d->cuDeviceGetAttribute(&impl->major, kAttrComputeCapabilityMajor, impl->dev);
  d->cuDeviceGetAttribute(&impl->minor, kAttrComputeCapabilityMinor, impl->dev);
  if ((r = d->cuCtxCreate_v2(&impl->ctx, 0, impl->dev)) != 0)
    return Error{cuErr(d, r, "cuCtxCreate"), 3};
  return Device(std::move(impl));
}

std::string Device::arch() const {
  return "sm_" + std::to_string(p->major) + std::to_string(p->minor);
}

std::string Device::name() const { return p->name + " (" + arch() + ")"; }

Result<DeviceRun> Device::launch(const Module &module, const std::string &kernel,
                                 Args &args) {
  Driver *d = p->drv;
  const KernelInfo *ki = module.kernel(kernel);
  if (!ki)
    return Error{"no kernel '" + kernel + "' in the module", 2};
  // Same header evaluation as the executor: grid, shapes, requires, sizes.
  Executor exec;
  Result<LaunchInfo> info = exec.describe(module, kernel, args);
  if (!info)
    return info.error();
  if (!info->requiresHold)
    return Error{"precondition failed: " + info->failedRequires, 2};
  DeviceRun run;
  run.launch = *info;
  for (const ParamInfo &pi : ki->params) {
    if (pi.kind != ParamInfo::Buffer)
      continue;
    const HostBuffer *hb = args.buffer(pi.name);
    if (!hb)
      return Error{"missing buffer argument '" + pi.name + "'", 2};
    int64_t need = 1;
    for (int64_t x : info->bufferDims[pi.name])
      need *= x;
    size_t esz = elementSize(info->bufferTypes[pi.name].first);
    if (hb->bytes.size() != (size_t)need * esz)
      return Error{"buffer '" + pi.name + "' holds " +
                       std::to_string(hb->bytes.size() / std::max<size_t>(esz, 1)) +
                       " elements, its shape needs " + std::to_string(need),
                   2};
  }
  if (info->numBlocks() == 0)
    return run;
  if (module.ptx().empty())
    return Error{"module holds no PTX (compile with emitPTX)", 2};

  CUresult r = d->cuCtxSetCurrent(p->ctx);
  if (r != 0)
    return Error{cuErr(d, r, "cuCtxSetCurrent"), 3};
  char log[8192] = {0};
  int jitOpts[2] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *jitVals[2] = {log, reinterpret_cast<void *>(sizeof log - 1)};
  CUmodule mod = nullptr;
  r = d->cuModuleLoadDataEx(&mod, module.ptx().c_str(), 2, jitOpts, jitVals);
  if (r != 0)
    return Error{cuErr(d, r, "cuModuleLoadDataEx") + (log[0] ? std::string("\n") + log : ""), 3};
  struct Cleanup {
    Driver *d;
    CUmodule mod;
    std::vector<CUdeviceptr> ptrs;
    std::vector<CUevent> events;
    ~Cleanup() {
      for (CUdeviceptr q : ptrs)
        d->cuMemFree_v2(q);
      for (CUevent e : events)
        d->cuEventDestroy_v2(e);
      d->cuModuleUnload(mod);
    }
  } cleanup{d, mod, {}, {}};
  CUfunction fn = nullptr;
  if ((r = d->cuModuleGetFunction(&fn, mod, kernel.c_str())) != 0)
    return Error{cuErr(d, r, "cuModuleGetFunction") + " for '" + kernel + "'", 3};

  // Parameters in source order: a device pointer per buffer, scalars by value.
  std::vector<std::vector<uint8_t>> storage;
  std::vector<std::pair<CUdeviceptr, size_t>> ranges;
  std::vector<std::pair<CUdeviceptr, HostBuffer *>> copyBack;
  for (const ParamInfo &pi : ki->params) {
    std::vector<uint8_t> bytes;
    if (pi.kind == ParamInfo::Buffer) {
      HostBuffer *hb = args.buffer(pi.name);
      CUdeviceptr ptr = 0;
      size_t size = std::max<size_t>(hb->bytes.size(), 1);
      if ((r = d->cuMemAlloc_v2(&ptr, size)) != 0)
        return Error{cuErr(d, r, "cuMemAlloc") + " for '" + pi.name + "'", 3};
      cleanup.ptrs.push_back(ptr);
      for (auto &[q, n] : ranges)
        if (ptr < q + n && q < ptr + size)
          return Error{"device buffers '" + pi.name + "' and another overlap", 3};
      ranges.push_back({ptr, size});
      if (!hb->bytes.empty() &&
          (r = d->cuMemcpyHtoD_v2(ptr, hb->bytes.data(), hb->bytes.size())) != 0)
        return Error{cuErr(d, r, "cuMemcpyHtoD") + " for '" + pi.name + "'", 3};
      if (pi.access != "in")
        copyBack.push_back({ptr, hb});
      bytes.resize(sizeof ptr);
      std::memcpy(bytes.data(), &ptr, sizeof ptr);
    } else {
      const ScalarValue *s = args.scalar(pi.name);
      if (!s)
        return Error{"missing scalar argument '" + pi.name + "'", 2};
      const std::string &t = pi.type;
      double dv = std::holds_alternative<double>(*s)    ? std::get<double>(*s)
                  : std::holds_alternative<int64_t>(*s) ? (double)std::get<int64_t>(*s)
                                                        : (double)std::get<bool>(*s);
      int64_t iv = std::holds_alternative<int64_t>(*s) ? std::get<int64_t>(*s)
                   : std::holds_alternative<bool>(*s)  ? (int64_t)std::get<bool>(*s)
                                                       : (int64_t)dv;
      HostBuffer tmp(t == "i1" ? "bool" : t, {1});
      if (tmp.bytes.empty())
        return Error{"scalar '" + pi.name + "' has unsupported type " + t, 3};
      if (t == "i64" || t == "u64")
        std::memcpy(tmp.bytes.data(), &iv, 8);
      else
        tmp.set(0, (t[0] == 'f' || t[0] == 'b') && t != "bool" ? dv : (double)iv);
      bytes = tmp.bytes;
    }
    storage.push_back(std::move(bytes));
  }
  std::vector<void *> params;
  for (auto &s : storage)
    params.push_back(s.data());

  CUevent start = nullptr, stop = nullptr;
  if (d->cuEventCreate(&start, 0) == 0)
    cleanup.events.push_back(start);
  if (d->cuEventCreate(&stop, 0) == 0)
    cleanup.events.push_back(stop);
  if (start)
    d->cuEventRecord(start, nullptr);
  r = d->cuLaunchKernel(fn, (unsigned)info->grid[0], (unsigned)info->grid[1],
                        (unsigned)info->grid[2], (unsigned)info->block[0],
                        (unsigned)info->block[1], (unsigned)info->block[2], 0,
                        nullptr, params.data(), nullptr);
  if (r != 0)
    return Error{cuErr(d, r, "cuLaunchKernel"), 3};
  if (stop)
    d->cuEventRecord(stop, nullptr);
  if ((r = d->cuCtxSynchronize()) != 0)
    return Error{cuErr(d, r, "kernel execution (cuCtxSynchronize)"), 3};
  float ms = 0;
  if (start && stop && d->cuEventElapsedTime(&ms, start, stop) == 0)
    run.elapsedMs = ms;
  for (auto &[ptr, hb] : copyBack)
    if (!hb->bytes.empty() &&
        (r = d->cuMemcpyDtoH_v2(hb->bytes.data(), ptr, hb->bytes.size())) != 0)
      return Error{cuErr(d, r, "cuMemcpyDtoH"), 3};
  return run;
}

} // namespace kuiper
