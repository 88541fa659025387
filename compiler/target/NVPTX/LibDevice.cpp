//===- LibDevice.cpp - math dialect ops as libdevice functions ------------===//
//
// The one table of the libdevice functions Kuiper calls. Upstream's
// `populateLibDeviceConversionPatterns` maps math.sqrt to `__nv_sqrtf`, which
// is approximate without `__CUDA_PREC_SQRT`; the verifier assumes IEEE sqrt,
// hence `__nv_fsqrt_rn` here.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Target/NVPTX/NVPTXTargetInfo.h"

#include "llvm/ADT/StringRef.h"

namespace kuiper {
namespace {

struct LibdeviceFunction {
  llvm::StringLiteral opName;
  llvm::StringLiteral f32;
  llvm::StringLiteral f64;
};

constexpr LibdeviceFunction kLibdeviceFunctions[] = {
    {"math.sqrt", "__nv_fsqrt_rn", "__nv_dsqrt_rn"},
    {"math.exp", "__nv_expf", "__nv_exp"},
    {"math.exp2", "__nv_exp2f", "__nv_exp2"},
    {"math.expm1", "__nv_expm1f", "__nv_expm1"},
    {"math.log", "__nv_logf", "__nv_log"},
    {"math.log2", "__nv_log2f", "__nv_log2"},
    {"math.log10", "__nv_log10f", "__nv_log10"},
    {"math.log1p", "__nv_log1pf", "__nv_log1p"},
    {"math.rsqrt", "__nv_rsqrtf", "__nv_rsqrt"},
    {"math.cbrt", "__nv_cbrtf", "__nv_cbrt"},
    {"math.tanh", "__nv_tanhf", "__nv_tanh"},
    {"math.sinh", "__nv_sinhf", "__nv_sinh"},
    {"math.cosh", "__nv_coshf", "__nv_cosh"},
    {"math.sin", "__nv_sinf", "__nv_sin"},
    {"math.cos", "__nv_cosf", "__nv_cos"},
    {"math.tan", "__nv_tanf", "__nv_tan"},
    {"math.asin", "__nv_asinf", "__nv_asin"},
    {"math.acos", "__nv_acosf", "__nv_acos"},
    {"math.atan", "__nv_atanf", "__nv_atan"},
    {"math.atan2", "__nv_atan2f", "__nv_atan2"},
    {"math.erf", "__nv_erff", "__nv_erf"},
    {"math.erfc", "__nv_erfcf", "__nv_erfc"},
    {"math.absf", "__nv_fabsf", "__nv_fabs"},
    {"math.floor", "__nv_floorf", "__nv_floor"},
    {"math.ceil", "__nv_ceilf", "__nv_ceil"},
    {"math.round", "__nv_roundf", "__nv_round"},
    {"math.roundeven", "__nv_rintf", "__nv_rint"},
    {"math.trunc", "__nv_truncf", "__nv_trunc"},
    {"math.powf", "__nv_powf", "__nv_pow"},
    {"math.fma", "__nv_fmaf", "__nv_fma"},
    {"math.copysign", "__nv_copysignf", "__nv_copysign"},
};

} // namespace

llvm::StringRef getLibdeviceFunctionName(llvm::StringRef opName,
                                         bool isDouble) {
  for (const LibdeviceFunction &fn : kLibdeviceFunctions)
    if (fn.opName == opName)
      return isDouble ? fn.f64 : fn.f32;
  return "";
}

} // namespace kuiper
