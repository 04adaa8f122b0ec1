#!/usr/bin/env python3
"""Runs the numba-cuda client tier under `ptxvm exec` and checks every listed test passed.

    run.py [--python PY] [--ptxvm PTXVM] [--list FILE] [--timeout S] [ID...]

The tests (numba-cuda's own, from the installed wheel, and this directory's test_*.py) run
in one pytest process started as `ptxvm exec -- PY -m pytest ...`, with
ptxvm_numba_plugin.py selecting the listed ids and writing each result to a file. This
script only supervises (any Python 3 runs it); it needs no numba itself. The exit status is
0 only when every listed test passed: a failure, an error, a skip, an expected failure, a
listed id that was not collected (missing) and a test that never finished (timeout or a
crash of the process) all count against it. The last line is

    numba-cuda suite: N passed of M listed

--no-kernels-audit runs each listed test in its own process with PTXVM_MAX_STEPS=1, so that
every kernel launch fails, and lists the tests that pass anyway: they do not depend on
kernels running and do not belong in the list (the exit status is non-zero if there are any).
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def read_list(path):
    ids = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                ids.append(line)
    return ids


def module_arg(test_id):
    """What to pass to `pytest --pyargs` to collect the module holding test_id."""
    return test_id.split("::", 1)[0]


def pytest_command(a, ids, list_file, results, timeout):
    modules = []
    for i in ids:
        m = module_arg(i)
        if m not in modules:
            modules.append(m)
    return [
        a.ptxvm, "exec", "--", a.python, "-m", "pytest",
        "-p", "ptxvm_numba_plugin", "-p", "no:cacheprovider",
        "--import-mode=importlib", "--rootdir", REPO, "-c", os.devnull,
        "--ptxvm-list", list_file, "--ptxvm-results", results,
        "--ptxvm-timeout", str(timeout),
        "-q", "-rfEsxX", "--disable-warnings", "--pyargs", *modules,
    ] + a.pytest_args


def child_env(extra=None):
    env = dict(os.environ)
    pp = env.get("PYTHONPATH")
    env["PYTHONPATH"] = HERE + (os.pathsep + pp if pp else "")
    env.update(extra or {})
    return env


def run_child(cmd, env, total_timeout, quiet):
    """Runs the pytest process in its own process group; returns (rc, timed_out)."""
    out = subprocess.DEVNULL if quiet else None
    p = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=out,
                         start_new_session=True)
    try:
        return p.wait(timeout=total_timeout), False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return p.returncode, True


def read_results(path):
    collected, started, reports = [], set(), {}
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a line cut short by a killed process
            if r["event"] == "collected":
                collected.append(r["id"])
            elif r["event"] == "start":
                started.add(r["id"])
            elif r["event"] == "report" and r.get("id"):
                reports.setdefault(r["id"], []).append(r)
    return collected, started, reports


def finished_sessions(path):
    with open(path) as f:
        return sum(1 for line in f if line.startswith('{"event": "finished"'))


def verdict(reps):
    """(status, duration, detail) of one test from its phase reports."""
    dur = sum(r["duration"] for r in reps)
    for r in reps:
        if r["outcome"] == "failed":
            return ("error in " + r["when"] if r["when"] != "call" else "failed",
                    dur, r.get("longrepr", ""))
    for r in reps:
        if r["outcome"] == "skipped":
            kind = "expected failure" if r["wasxfail"] else "skipped"
            return kind, dur, r.get("longrepr", "")
    if any(r["when"] == "call" and r["outcome"] == "passed" for r in reps):
        if any(r["when"] == "teardown" for r in reps):
            return "passed", dur, ""
    return "not finished", dur, ""


def summarize(ids, collected, started, reports):
    results = {}
    collected = set(collected)
    for i in ids:
        if i not in collected:
            results[i] = ("missing", 0.0, "listed id was not collected")
        elif i in reports:
            results[i] = verdict(reports[i])
            if results[i][0] == "not finished":
                results[i] = ("not finished (timeout or crash)", results[i][1], "")
        elif i in started:
            results[i] = ("not finished (timeout or crash)", 0.0, "")
        else:
            results[i] = ("not run (the process ended before it)", 0.0, "")
    return results


def main_suite(a, ids, list_file):
    with tempfile.TemporaryDirectory(prefix="ptxvm-numba-") as tmp:
        results = os.path.join(tmp, "results.jsonl")
        open(results, "a").close()
        t0 = time.time()
        todo, timed_out, restarts, rc = list(ids), False, 0, None
        while todo:
            # One pytest process for everything; if it dies (a crash, or a test past
            # --timeout), a new one runs the tests that had not started yet.
            sel = os.path.join(tmp, f"selected{restarts}.txt")
            with open(sel, "w") as f:
                f.write("\n".join(todo) + "\n")
            cmd = pytest_command(a, todo, sel, results, a.timeout)
            left = a.total_timeout - (time.time() - t0)
            done_before = finished_sessions(results)
            rc, timed_out = run_child(cmd, child_env(), max(left, 1), a.quiet)
            if timed_out or finished_sessions(results) > done_before:
                break  # pytest ended its session normally
            _, started, _ = read_results(results)
            rest = [i for i in todo if i not in started]
            if len(rest) == len(todo) or restarts >= a.max_restarts:
                break
            restarts += 1
            print(f"\nthe pytest process ended abnormally (status {rc}); "
                  f"restarting it for the {len(rest)} tests not started yet", flush=True)
            todo = rest
        wall = time.time() - t0
        res = summarize(ids, *read_results(results))
    bad = [(i, r) for i, r in res.items() if r[0] != "passed"]
    print()
    if timed_out:
        print(f"the run exceeded --total-timeout {a.total_timeout:.0f} s and was killed")
    if bad:
        print(f"{len(bad)} listed test(s) did not pass:")
        for i, (status, _, detail) in bad:
            line = detail.strip().splitlines()[-1] if detail.strip() else ""
            print(f"  {status}: {i}" + (f"  -- {line[:200]}" if line else ""))
    if a.durations:
        print(f"slowest {a.durations} tests:")
        for i, r in sorted(res.items(), key=lambda x: -x[1][1])[: a.durations]:
            print(f"  {r[1]:7.2f}s {i}")
    passed = len(ids) - len(bad)
    print(f"wall time {wall:.1f} s (last pytest exit status {rc})")
    print(f"numba-cuda suite: {passed} passed of {len(ids)} listed")
    return 0 if passed == len(ids) and not timed_out else 1


def main_audit(a, ids):
    """Each test alone with PTXVM_MAX_STEPS=1: which pass without any kernel completing?"""
    env = child_env({"PTXVM_MAX_STEPS": "1"})
    passing = []
    with tempfile.TemporaryDirectory(prefix="ptxvm-numba-audit-") as tmp:
        for n, i in enumerate(ids, 1):
            results = os.path.join(tmp, f"r{n}.jsonl")
            sel = os.path.join(tmp, f"s{n}.txt")
            with open(sel, "w") as f:
                f.write(i + "\n")
            cmd = pytest_command(a, [i], sel, results, a.timeout)
            run_child(cmd, env, a.timeout + 30, True)
            open(results, "a").close()
            status = summarize([i], *read_results(results))[i][0]
            print(f"[{n}/{len(ids)}] {status}: {i}", flush=True)
            if status == "passed":
                passing.append(i)
    print()
    for i in passing:
        print(f"passes with PTXVM_MAX_STEPS=1 (not an acceptance test): {i}")
    print(f"no-kernels audit: {len(passing)} of {len(ids)} listed tests pass "
          "with every kernel failing")
    return 1 if passing else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=os.environ.get("PYTHON"),
                    help="the Python with numba-cuda (default: $PYTHON)")
    ap.add_argument("--ptxvm", default=os.environ.get("PTXVM")
                    or os.path.join(REPO, "target", "release", "ptxvm"),
                    help="the ptxvm executable (default: $PTXVM, else target/release/ptxvm)")
    ap.add_argument("--list", default=os.path.join(HERE, "tests.txt"))
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds one test may take (default 60)")
    ap.add_argument("--total-timeout", type=float, default=900,
                    help="seconds the whole run may take (default 900)")
    ap.add_argument("--max-restarts", type=int, default=3,
                    help="new pytest processes after one dies (default 3)")
    ap.add_argument("--durations", type=int, default=10,
                    help="print the N slowest tests (default 10)")
    ap.add_argument("--quiet", action="store_true", help="hide pytest's own output")
    ap.add_argument("--no-kernels-audit", action="store_true",
                    help="run each test alone with PTXVM_MAX_STEPS=1 and list those that pass")
    ap.add_argument("--pytest-arg", dest="pytest_args", action="append", default=[],
                    help="extra argument for pytest (repeatable)")
    ap.add_argument("ids", nargs="*", help="run only these listed ids")
    a = ap.parse_args()
    if not a.python:
        ap.error("no Python given: use --python PY or set $PYTHON")
    if not os.access(a.ptxvm, os.X_OK):
        ap.error(f"{a.ptxvm} is not executable: build it with "
                 "`cargo build --release -p ptxvm -p ptxvm-cuda` or pass --ptxvm")
    ids = read_list(a.list)
    if len(set(ids)) != len(ids):
        ap.error(f"{a.list} lists some ids more than once")
    if a.ids:
        unknown = [i for i in a.ids if i not in ids]
        if unknown:
            ap.error("not in the list: " + ", ".join(unknown))
        ids = a.ids
    if a.no_kernels_audit:
        return main_audit(a, ids)
    return main_suite(a, ids, a.list)


if __name__ == "__main__":
    sys.exit(main())
