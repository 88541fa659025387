#!/usr/bin/env python3
"""Writes big or deeply nested .kp programs, so that the tests of the front
end's limits need not keep megabytes of source in the repository. One call
writes them all (Python starts slowly).

usage: generate.py DIR SHAPE:N...   writes DIR/SHAPE-N.kp for each SHAPE:N
"""
import os
import sys

HEADER = ("kernel k(n: i32, inout y: i32[n]) launch block(1) grid(1) "
          "requires n >= 0 {\n")


def kernel(body):
    return HEADER + body + "}\n"


def fn_chain(n, call):
    fns = "fn f0(x: i32) -> i32 { return x; }\n"
    fns += "".join(f"fn f{i}(x: i32) -> i32 {{ return {call(i - 1)}; }}\n"
                   for i in range(1, n))
    return fns + kernel(f"  let a = f{n - 1}(1);\n")


def const_chain(n, init):
    consts = "const C0: f32 = 1.0;\n"
    consts += "".join(f"const C{i}: f32 = {init(i - 1)};\n" for i in range(1, n))
    return consts + kernel(f"  let a = C{n - 1};\n")


def int_list(n):
    return "[" + ", ".join(str(i) for i in range(n)) + "]"


SHAPES = {
    # Every statement after the first `return;` is dead code.
    "returns": lambda n: kernel("  return;\n" * n),
    # Each conditional return guards the rest of the body one level deeper.
    "early-returns": lambda n: kernel("  if (n > 0) { return; }\n" * n),
    "assigns": lambda n: kernel("  var x: i32 = 0;\n" + "  x = x + 1;\n" * n),
    "ifs": lambda n: kernel("  var x: i32 = 0;\n"
                            + "  if (n > 3) { x = x + 1; }\n" * n),
    "lets": lambda n: kernel("".join(f"  let a{i}: i32 = {i};\n" for i in range(n))),
    "else-ifs": lambda n: kernel(
        "  var x: i32 = 0;\n  if (n == 0) { x = 0; }"
        + "".join(f" else if (n == {i}) {{ x = {i}; }}" for i in range(1, n))
        + "\n"),
    "blocks": lambda n: kernel("  " + "{" * n + "}" * n + "\n"),
    "parens": lambda n: kernel("  let a = " + "(" * n + "1" + ")" * n + ";\n"),
    "operators": lambda n: kernel("  let a = 1" + " + 1" * n + ";\n"),
    "negations": lambda n: kernel("  let a = " + "-" * n + "1;\n"),
    "fn-chain": lambda n: fn_chain(n, lambda i: f"f{i}(x)"),
    "fn-doubling": lambda n: fn_chain(n, lambda i: f"f{i}(x) + f{i}(x)"),
    "const-chain": lambda n: const_chain(n, lambda i: f"C{i} + 1.0"),
    "const-doubling": lambda n: const_chain(n, lambda i: f"C{i} + C{i}"),
    "nested-lists": lambda n: kernel(
        f"  var x: i32 = 0;\n  for i in {int_list(n)} {{\n"
        f"    for j in {int_list(n)} {{ x = x + 1; }}\n  }}\n"),
}

if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: generate.py DIR SHAPE:N... (SHAPE in "
                 + ", ".join(SHAPES) + ")")
    os.makedirs(sys.argv[1], exist_ok=True)
    for spec in sys.argv[2:]:
        shape, n = spec.split(":")
        with open(os.path.join(sys.argv[1], f"{shape}-{n}.kp"), "w") as f:
            f.write(SHAPES[shape](int(n)))
