#!/usr/bin/env python3
"""Compile every .kp under the given directories with `kuiperc --no-verify --arch ARCH`
and assemble the PTX with `ptxas --gpu-name=ARCH`. Usage:
    compile-corpus.py KUIPERC PTXAS ARCH DIR...
Prints one line per file and exits non-zero if any file fails. Without ptxas it
prints "skipped: no ptxas" and succeeds (the lowering itself is still exercised).
Files whose `// EXPECT:` line says `unsupported` (known not to be accepted yet) are
listed as skipped; if one compiles, that is a failure (its EXPECT line is stale)."""
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    kuiperc, ptxas, arch, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    files = sorted(os.path.join(root, f) for d in dirs for root, _, fs in os.walk(d)
                   for f in fs if f.endswith(".kp"))
    if not files:
        print("error: no .kp files found", file=sys.stderr)
        return 1
    have_ptxas = bool(ptxas) and os.path.exists(ptxas)
    if not have_ptxas:
        print("skipped: no ptxas")
        return 0
    failures = 0
    skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            out = os.path.join(tmp, os.path.basename(f)[:-3] + ".ptx")
            p = subprocess.run([kuiperc, f, "--no-verify", "--arch", arch, "-o", out],
                               capture_output=True, text=True, timeout=300)
            with open(f, errors="replace") as src:
                unsupported = "// EXPECT: unsupported" in src.read()
            if unsupported:
                if p.returncode == 2:
                    skipped += 1
                    print(f"skipped (EXPECT: unsupported) {f}")
                else:
                    failures += 1
                    print(f"FAIL {f}: EXPECT says unsupported, kuiperc exit {p.returncode}")
                continue
            if p.returncode != 0:
                failures += 1
                print(f"FAIL kuiperc {f} (exit {p.returncode})\n{p.stderr}")
                continue
            q = subprocess.run([ptxas, f"--gpu-name={arch}", out, "-o", os.devnull],
                               capture_output=True, text=True, timeout=300)
            if q.returncode != 0:
                failures += 1
                print(f"FAIL ptxas {f} (exit {q.returncode})\n{q.stderr}\n"
                      f"repro: {kuiperc} {f} --no-verify --arch {arch} -o /tmp/k.ptx && "
                      f"{ptxas} --gpu-name={arch} /tmp/k.ptx -o /dev/null")
                continue
            print(f"ok {f}")
    print(f"{len(files) - failures - skipped}/{len(files) - skipped} files compiled and "
          f"assembled for {arch}" + (f" ({skipped} unsupported skipped)" if skipped else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
