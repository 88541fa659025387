# KuiperStaticLLVM.cmake: KUIPER_STATIC_LLVM=ON links LLVM's and MLIR's static
# libraries instead of libLLVM.so and libMLIR.so (the release bundle, `make dist`).
#
# With MLIR_LINK_MLIR_DYLIB and LLVM_LINK_LLVM_DYLIB off, mlir_target_link_libraries
# already names the static MLIR libraries. What is left is the LLVM dylib (`LLVM`, the
# imported target of libLLVM.so), which a few of our targets name directly and which
# the static MLIR libraries of the Debian/apt.llvm.org packages name in their link
# interface (they were built against it): kuiper_link_static_llvm() replaces it, after
# every target exists, with the static LLVM components below (their own dependencies
# follow from LLVM's exported targets). The archives only contribute the objects that
# are used; shared libraries link with --no-undefined, so a missing component is a
# link error, not a run-time one.
#
# libkuiper.so then holds the one copy of LLVM and MLIR in a process: it exports
# their symbols (as libLLVM.so does), and the tools link against it first, so the
# static archives the tools also name contribute nothing it already defines. A
# second static copy in one process would register LLVM's command-line options
# twice.

# LLVMSupport's static library links zstd::libzstd_shared, which LLVM's config
# finds only with zstd's development files (libzstd-dev); the run-time library
# is enough to link against.
if(NOT TARGET zstd::libzstd_shared)
  find_library(KUIPER_ZSTD_LIBRARY NAMES zstd libzstd.so.1 REQUIRED)
  add_library(zstd::libzstd_shared SHARED IMPORTED)
  set_target_properties(zstd::libzstd_shared PROPERTIES
    IMPORTED_LOCATION "${KUIPER_ZSTD_LIBRARY}")
endif()

set(KUIPER_STATIC_LLVM_COMPONENTS
  NVPTXCodeGen NVPTXDesc NVPTXInfo
  Passes Linker IRReader BitReader BitWriter
  CodeGen AsmPrinter Target MC Core Support TargetParser)

function(kuiper_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    kuiper_collect_targets(${sub} subtargets)
    list(APPEND targets ${subtargets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Replaces the LLVM dylib by the static components in every target of the project
# and in the imported MLIR targets.
function(kuiper_link_static_llvm)
  llvm_map_components_to_libnames(static_libs ${KUIPER_STATIC_LLVM_COMPONENTS})
  kuiper_collect_targets(${PROJECT_SOURCE_DIR} targets)
  get_property(imported DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY IMPORTED_TARGETS)
  foreach(target ${targets} ${imported})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "UTILITY")
      continue()
    endif()
    if(type STREQUAL "SHARED_LIBRARY" AND NOT target IN_LIST imported)
      target_link_options(${target} PRIVATE "LINKER:--no-undefined")
    endif()
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${target} ${property})
      if(NOT libs)
        continue()
      endif()
      set(replaced "")
      foreach(lib IN LISTS libs)
        if(lib STREQUAL "LLVM")
          list(APPEND replaced ${static_libs})
        elseif(lib STREQUAL "$<LINK_ONLY:LLVM>")
          foreach(s ${static_libs})
            list(APPEND replaced "$<LINK_ONLY:${s}>")
          endforeach()
        else()
          list(APPEND replaced "${lib}")
        endif()
      endforeach()
      set_property(TARGET ${target} PROPERTY ${property} "${replaced}")
    endforeach()
  endforeach()
endfunction()
