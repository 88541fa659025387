#!/usr/bin/env python3
"""recheck-smt.py SOLVER FILE: re-checks the obligations of `kuiperc --emit smt` output
with another solver (z3 or cvc5). Every obligation the report calls proved must be
unsat. Prints one line per obligation; exits 1 on any disagreement."""
import subprocess
import sys


def main():
    solver, path = sys.argv[1], sys.argv[2]
    cmd = {"z3": ["z3", "-in", "-T:60"], "cvc5": ["cvc5", "--lang=smt2", "--tlimit=60000"]}[solver]
    segments = open(path).read().split("; ---- ")[1:]
    bad = 0
    for seg in segments:
        header, text = seg.split("\n", 1)
        if "proved)" not in header:
            continue
        if "(set-logic" not in text and solver == "cvc5":
            text = "(set-logic ALL)\n" + text
        r = subprocess.run(cmd, input=text, capture_output=True, text=True)
        answer = (r.stdout.strip().splitlines() or ["<none>"])[-1]
        ok = answer == "unsat"
        bad += not ok
        print(f"{'ok' if ok else 'DISAGREE'} {solver} {answer} {header}")
        if not ok and r.stderr:
            print(r.stderr[:500])
    print(f"{len(segments)} obligations, {bad} disagreements")
    return 1 if bad or not segments else 0


if __name__ == "__main__":
    sys.exit(main())
