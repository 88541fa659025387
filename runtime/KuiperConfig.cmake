# KuiperConfig.cmake: the CMake package of an installed Kuiper.
#
#   find_package(Kuiper CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE Kuiper::Runtime)
#
# Kuiper::Runtime is libkuiper.so with the public headers (kuiper/Compiler.h,
# Report.h, Executor.h, Device.h, Replay.h) on its include path. It needs
# C++17 and nothing else at build time: MLIR, LLVM and Z3 are private to the
# library, and CUDA is loaded at run time.
include("${CMAKE_CURRENT_LIST_DIR}/KuiperTargets.cmake")
set(Kuiper_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}/../../../include")
get_filename_component(Kuiper_INCLUDE_DIRS "${Kuiper_INCLUDE_DIRS}" ABSOLUTE)
set(Kuiper_LIBRARIES Kuiper::Runtime)
