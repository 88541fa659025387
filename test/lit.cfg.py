# -*- Python -*-
# lit configuration of Kuiper's tests (test/). See lit.site.cfg.py.in for the
# values CMake fills in.
import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "Kuiper"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".kp", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kuiper_obj_root, "test")

# Corpus programs are inputs of the Corpus/*.test drivers, not tests themselves.
config.excludes.append("kp")

config.substitutions.append(("%PATH%", config.environment["PATH"]))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# The proof cache of the tests is the build directory's own (test/proof-cache), not the
# user's ~/.cache/kuiper: a fresh build is tested from an empty cache, as on a CI machine,
# and the proofs of other checkouts do not shorten (or hide the cost of) this one's.
config.environment["KUIPER_CACHE_DIR"] = os.path.join(config.kuiper_obj_root, "test", "proof-cache")
llvm_config.use_default_substitutions()

# `lit --param kuiper_tools_dir=DIR` tests the binaries of DIR (an installed
# Kuiper, say) instead of the build's.
config.kuiper_tools_dir = lit_config.params.get("kuiper_tools_dir", config.kuiper_tools_dir)

# Tools: the project's own binaries first, then FileCheck/not from LLVM 22.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", "/usr/lib/llvm-22/bin", append_path=True)
llvm_config.with_environment("PATH", config.kuiper_tools_dir, append_path=True)

# The interpreter that runs lit itself: a real binary. CMake's choice may be a
# version manager's shim (pyenv's costs 0.3 s per start, against 0.04 s).
python = sys.executable or config.python_executable or "python3"
config.python_executable = python
src = config.kuiper_src_root
tool = lambda name: os.path.join(config.kuiper_tools_dir, name)

config.substitutions.append(("%kuiperc", tool("kuiperc")))
config.substitutions.append(("%kuiper-opt", tool("kuiper-opt")))
config.substitutions.append(("%kuiper-run", tool("kuiper-run")))
config.substitutions.append(("%kuiper-lower", tool("kuiper-lower")))
config.substitutions.append(("%kuiper-gpu-check", tool("kuiper-gpu-check")))
config.substitutions.append(("%ptxas", config.kuiper_ptxas))
config.substitutions.append(("%shared_kp", os.path.join(src, "test", "Corpus", "kp")))
config.substitutions.append(("%examples", os.path.join(src, "examples")))
config.substitutions.append(("%verdicts", f"{python} {os.path.join(src, 'scripts', 'verdicts')}"))
config.substitutions.append(("%mutate", f"{python} {os.path.join(src, 'scripts', 'mutate')}"))
config.substitutions.append(("%compile-corpus", f"{python} {os.path.join(src, 'scripts', 'compile-corpus.py')}"))
config.substitutions.append(("%recheck-smt", f"{python} {os.path.join(src, 'scripts', 'recheck-smt.py')}"))
config.substitutions.append(("%python", python))
config.substitutions.append(("%kuiper_obj_root", config.kuiper_obj_root))

# CMake (test/Runtime/embed.test builds examples/embed against an install).
cmake = shutil.which("cmake")
if cmake:
    config.available_features.add("cmake")
    generator = "-G Ninja" if shutil.which("ninja") else ""
    # A sanitizer build's libkuiper.so needs the embedding program built with
    # the same sanitizers (their runtime must come first).
    sanitize = [f for f in getattr(config, "kuiper_cxx_flags", "").split()
                if f.startswith("-fsanitize=")]
    if sanitize:
        flags = " ".join(sanitize)
        generator += f' "-DCMAKE_CXX_FLAGS={flags}" "-DCMAKE_EXE_LINKER_FLAGS={flags}"'
    config.substitutions.append(("%cmake-generator", generator))
    config.substitutions.append(("%cmake", cmake))

# The GoogleTest unit tests (unittests/), where GoogleTest was found.
if os.path.exists(tool("KuiperUnitTests")):
    config.available_features.add("unittests")
    config.substitutions.append(("%kuiper-unittests", tool("KuiperUnitTests")))
if config.kuiper_ptxas and os.path.exists(config.kuiper_ptxas):
    config.available_features.add("ptxas")
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
if shutil.which("cvc5"):
    config.available_features.add("cvc5")
if shutil.which("z3"):
    config.available_features.add("z3")
# The whole KernelBench set takes minutes: `lit --param kernelbench=1` runs it.
if lit_config.params.get("kernelbench"):
    config.available_features.add("kernelbench")
# Corpus files marked `// SLOW:` (long proofs): `lit --param slow=1` (`make check-slow`).
if lit_config.params.get("slow"):
    config.available_features.add("slow")
if config.kuiper_libdevice and os.path.exists(config.kuiper_libdevice):
    config.available_features.add("libdevice")
