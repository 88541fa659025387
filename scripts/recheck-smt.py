#!/usr/bin/env python3
"""recheck-smt.py SOLVER FILE: re-checks the obligations of `kuiperc --emit smt` output
with another solver (z3 or cvc5). Every obligation the report calls proved must be
unsat, every one it calls failed sat. Prints one line per obligation; exits 1 on any disagreement."""
import subprocess
import sys


def batch_answers(solver, segments):
    """The last output line of each query, solved one after the other by one solver
    process ((reset) between them, a per-query limit): {index: answer}. Queries
    whose answer is missing (the process died, an error) are simply not in it."""
    parts = []
    for n, seg in enumerate(segments):
        text = seg.split("\n", 1)[1] if "\n" in seg else ""
        if solver == "cvc5" and "(set-logic" not in text:
            text = "(set-logic ALL)\n" + text
        if solver == "z3":
            text = text.replace("(check-sat)", "(check-sat-using (then simplify (using-params smt :arith.solver 2)))")
        parts.append(f"{text}\n(echo \"@@END {n}\")\n(reset)\n")
    cmd = {"z3": ["z3", "-in", "-t:30000"],
           "cvc5": ["cvc5", "--lang=smt2", "--tlimit-per=60000", "--incremental"]}[solver]
    try:
        r = subprocess.run(cmd, input="".join(parts), capture_output=True, text=True, timeout=1800)
        out = r.stdout
    except subprocess.TimeoutExpired:
        return {}
    answers, block = {}, []
    for line in out.splitlines():
        if "@@END" in line:
            n = int(line.split("@@END", 1)[1].strip().strip('"'))
            lines = [l for l in block if l.strip()]
            if lines:
                answers[n] = lines[-1].strip()
            block = []
        else:
            block.append(line)
    return answers


def main():
    solver, path = sys.argv[1], sys.argv[2]
    # z3 is tried in the two configurations kuiperc's portfolio uses.
    cmds = {"z3": [["z3", "-in", "-T:30", "--tactic"], ["z3", "-in", "-T:30"]],
            "cvc5": [["cvc5", "--lang=smt2", "--tlimit=60000"]]}[solver]
    segments = open(path).read().split("; ---- ")[1:]
    batched = batch_answers(solver, segments)
    bad = 0
    for n, seg in enumerate(segments):
        header, text = seg.split("\n", 1)
        if text.startswith("; failed by a run"):
            continue  # the evidence is a run on the executor, not a model
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
        # First the answer of one solver process for all the queries (a solver
        # process costs more to start than most of these queries take); any
        # answer that is not the wanted one is asked again in a process of its
        # own, in each configuration, exactly as before.
        answer = batched.get(n)
        for cmd in ([] if answer == want else cmds):
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
