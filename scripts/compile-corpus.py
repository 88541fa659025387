#!/usr/bin/env python3
"""Compile every .kp under the given directories with `kuiperc --no-verify --arch ARCH`
and assemble the PTX with `ptxas --gpu-name=ARCH`. Usage:
    compile-corpus.py KUIPERC PTXAS ARCH DIR...
Prints one line per file and exits non-zero if any file fails. Without ptxas it
prints "skipped: no ptxas" and succeeds (the lowering itself is still exercised).
Files whose `// EXPECT:` line says `unsupported` (known not to be accepted yet) are
listed as skipped; if one compiles, that is a failure (its EXPECT line is stale)."""
import json
import os
import re
import subprocess
import sys
import tempfile

BATCH = 16  # files per kuiperc process: start-up is paid once per batch


def compile_all(kuiperc, arch, files, tmp):
    """Yields (file, exit status, stderr) for every file, each compiled to
    tmp/BASENAME.ptx. Files of one directory (their base names differ) go to kuiperc
    in batches; a batch whose process dies is compiled again one file per process, so
    that the file responsible is the one reported."""
    if os.sep in kuiperc:
        kuiperc = os.path.abspath(kuiperc)  # it runs in tmp
    groups = {}
    for f in files:
        groups.setdefault(os.path.dirname(f), []).append(f)
    for group in groups.values():
        for i in range(0, len(group), BATCH):
            batch = [os.path.abspath(f) for f in group[i:i + BATCH]]
            entries = None
            if len(batch) > 1:
                p = subprocess.run([kuiperc, *batch, "--no-verify", "--arch", arch,
                                    "--report", "json"], cwd=tmp, capture_output=True,
                                   text=True, timeout=300 * len(batch))
                try:
                    entries = json.loads(p.stdout)["files"]
                    if [e["file"] for e in entries] != batch:
                        entries = None
                except (ValueError, KeyError, TypeError):
                    entries = None
            if entries is not None:
                for e in entries:
                    yield e["file"], e["exit_status"], e.get("error", p.stderr)
                continue
            for f in batch:
                q = subprocess.run([kuiperc, f, "--no-verify", "--arch", arch], cwd=tmp,
                                   capture_output=True, text=True, timeout=300)
                yield f, q.returncode, q.stderr


MODULE_NAME = re.compile(r"([A-Za-z_$%][\w$]*)\s*(?:\(|\[|;|$)")
PTXAS_BATCH = 32


def module_names(ptx_path):
    """The names a PTX module declares at module scope (entries, functions, globals),
    or None where it refers to one it does not define (`.extern`): such a module is
    assembled alone, as another module of a batch could define what it lacks."""
    names = set()
    with open(ptx_path, errors="replace") as ptx:
        for line in ptx:
            if not line.startswith(".") or line.startswith((".version", ".target", ".address_size")):
                continue
            if line.startswith(".extern"):
                return None
            found = MODULE_NAME.findall(line)
            if found:
                names.add(found[-1])
    return names


def ptxas_batches(assembled):
    """Groups (file, ptx) pairs into batches of at most PTXAS_BATCH modules whose
    module-scope names are disjoint, in order."""
    batches, names = [], []
    for f, out in assembled:
        mine = module_names(out)
        if mine is not None:
            for batch, used in zip(batches, names):
                if used is not None and len(batch) < PTXAS_BATCH and not (used & mine):
                    batch.append((f, out))
                    used |= mine
                    break
            else:
                batches.append([(f, out)])
                names.append(set(mine))
            continue
        batches.append([(f, out)])
        names.append(None)
    return batches


def run_ptxas(ptxas, arch, paths):
    return subprocess.run([ptxas, f"--gpu-name={arch}", *paths, "-o", os.devnull],
                          capture_output=True, text=True, timeout=300)


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
        assembled = []
        for f, code, stderr in compile_all(kuiperc, arch, files, tmp):
            out = os.path.join(tmp, os.path.basename(f)[:-3] + ".ptx")
            with open(f, errors="replace") as src:
                unsupported = "// EXPECT: unsupported" in src.read()
            if unsupported:
                if code == 2:
                    skipped += 1
                    print(f"skipped (EXPECT: unsupported) {f}")
                else:
                    failures += 1
                    print(f"FAIL {f}: EXPECT says unsupported, kuiperc exit {code}")
                continue
            if code != 0:
                failures += 1
                print(f"FAIL kuiperc {f} (exit {code})\n{stderr}")
                continue
            assembled.append((f, out))
        # ptxas costs more to start than most of these files take to assemble: files
        # whose module-scope names differ go to one ptxas process together (it links
        # them as one program); a batch that fails is assembled again file by file,
        # so that every failure is reported against its own file, as it is alone.
        for batch in ptxas_batches(assembled):
            if len(batch) > 1 and run_ptxas(ptxas, arch, [out for _, out in batch]).returncode == 0:
                for f, _ in batch:
                    print(f"ok {f}")
                continue
            for f, out in batch:
                q = run_ptxas(ptxas, arch, [out])
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
