//===- Device.h - Kuiper CUDA launcher --------------------------*- C++ -*-===//
//
// Public API. Loads the CUDA driver with dlopen("libcuda.so.1") at run time
// (nothing links against CUDA), loads a Module's PTX and launches a kernel
// with the geometry of its `launch` clause. No MLIR, LLVM or CUDA types.
//
// Kernel ABI (what the lowering emits): the PTX entry is named after the
// kernel; its parameters are the kernel's parameters in source order, one
// global pointer per buffer and each scalar by value (bool as one byte).
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_DEVICE_H
#define KUIPER_DEVICE_H

#include "kuiper/Executor.h"

#include <memory>
#include <string>

namespace kuiper {

/// What a launch observed.
struct DeviceRun {
  LaunchInfo launch;
  double elapsedMs = 0; ///< kernel time measured with CUDA events
};

struct DeviceImpl;

/// A CUDA device with a context. Move-only.
class Device {
public:
  /// Opens device `ordinal`. Errors: no driver ("no CUDA driver:
  /// libcuda.so.1 not found"), no device, driver failures.
  static Result<Device> open(int ordinal = 0);
  Device(Device &&) noexcept;
  Device &operator=(Device &&) noexcept;
  ~Device();

  /// Device name and compute capability ("NVIDIA H100 (sm_90)").
  std::string name() const;
  /// "sm_XY" of the device.
  std::string arch() const;

  /// Launches `kernel` of `module` (which must hold PTX): evaluates the
  /// launch clause, shapes and scalar `requires` with the executor's code,
  /// checks each buffer's size against its shape, copies buffers to the
  /// device, launches, synchronizes and copies `out`/`inout` buffers back.
  /// A grid of zero blocks is a no-op.
  Result<DeviceRun> launch(const Module &module, const std::string &kernel,
                           Args &args);

private:
  explicit Device(std::unique_ptr<DeviceImpl> impl);
  std::unique_ptr<DeviceImpl> p;
};

} // namespace kuiper

#endif
