#!/usr/bin/env python3
"""expect-exit.py CODE CMD ARGS...: runs CMD (its stdout/stderr pass through) and
exits 0 if it exited with CODE, 1 (with a message on stderr) otherwise."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    print(f"expect-exit: expected exit status {want}, got {got}", file=sys.stderr)
    sys.exit(1)
