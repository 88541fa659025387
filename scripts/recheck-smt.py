#!/usr/bin/env python3
"""recheck-smt.py SOLVER FILE: re-checks the obligations of `kuiperc --emit smt` output
with another solver (z3 or cvc5). Every obligation the report calls proved must be
unsat, every one it calls failed sat. Prints one line per obligation; exits 1 on any disagreement."""
import subprocess
import sys


def main():
    solver, path = sys.argv[1], sys.argv[2]
    # z3 is tried in the two configurations kuiperc's portfolio uses.
    cmds = {"z3": [["z3", "-in", "-T:30", "--tactic"], ["z3", "-in", "-T:30"]],
            "cvc5": [["cvc5", "--lang=smt2", "--tlimit=60000"]]}[solver]
    segments = open(path).read().split("; ---- ")[1:]
    bad = 0
    for seg in segments:
        header, text = seg.split("\n", 1)
        if text.startswith("; vacuity probe"):
            if "proved)" not in header and "warning)" not in header:
                continue
            want = "sat" if "proved)" in header else "unsat"
        elif "proved)" in header:
            want = "unsat"
        elif "failed)" in header:
            want = "sat"
        else:
            continue
        if "(set-logic" not in text and solver == "cvc5":
            text = "(set-logic ALL)\n" + text
        for cmd in cmds:
            body = text
            if "--tactic" in cmd:
                cmd = [c for c in cmd if c != "--tactic"]
                body = text.replace("(check-sat)", "(check-sat-using (then simplify (using-params smt :arith.solver 2)))")
            r = subprocess.run(cmd, input=body, capture_output=True, text=True)
            answer = (r.stdout.strip().splitlines() or ["<none>"])[-1]
            if answer == want:
                break
        ok = answer == want
        bad += not ok
        print(f"{'ok' if ok else 'DISAGREE'} {solver} {answer} {header}")
        if not ok and r.stderr:
            print(r.stderr[:500])
    print(f"{len(segments)} obligations, {bad} disagreements")
    return 1 if bad or not segments else 0


if __name__ == "__main__":
    sys.exit(main())
