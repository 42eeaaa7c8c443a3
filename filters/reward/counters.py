"""Instruction counts: a deterministic measure of a program's work, where the machine can give one.

`perf stat -e instructions:u` reads the hardware counter (instructions retired) when the kernel and
the VM expose it; valgrind's cachegrind (`--cache-sim=no`) counts executed instructions in software
anywhere, about 25x slower than a native run. The program runs inside the sandbox as always: a small
driver, itself confined, starts the counting tool on the candidate and returns the counts. With a
fixed hash seed the counts repeat to about one part in a million.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

from filters.sandbox import Sandbox

__all__ = [
    "TOOLS",
    "perf_works",
    "valgrind_works",
    "pick_tool",
    "count_instructions",
    "baseline_code",
]

TOOLS = ("perf", "valgrind")

_DRIVER = r"""
import json, os, re, subprocess, sys

_TOOL = {tool!r}
_KIND = {kind!r}
_ENTRY = {entry!r}
_PROG = {code!r}


def measure(inputs):
    path = os.path.join(os.getcwd(), "prog.py")
    src = _PROG
    if _KIND == "call":
        src += "\n\nimport json as _cm_j, sys as _cm_s\n_cm_a = _cm_j.loads(_cm_s.stdin.read())\n"
        src += "(" + _ENTRY + ")(*_cm_a) if isinstance(_cm_a, list) else (" + _ENTRY + ")(_cm_a)\n"
    with open(path, "w") as f:
        f.write(src)
    if _TOOL == "perf":
        pre = ["perf", "stat", "-x", ",", "-e", "instructions:u", "--"]
    else:
        pre = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    out = []
    for data in inputs:
        p = subprocess.run(pre + [sys.executable, "-s", "-B", path], input=data.encode(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode != 0:
            return {{"error": "exit %d: %s" % (p.returncode, err[-200:])}}
        if _TOOL == "perf":
            m = re.search(r"^(\d+),[^,]*,instructions", err, re.M)
        else:
            m = re.search(r"I\s+refs:\s+([\d,]+)", err)
        if not m:
            return {{"error": "no count: " + err[-200:]}}
        out.append(int(m.group(1).replace(",", "")))
    return out
"""


@functools.lru_cache(maxsize=1)
def perf_works() -> bool:
    """True when `perf stat` can count user-space instructions here (often 'not supported' in VMs)."""
    if not shutil.which("perf"):
        return False
    try:
        p = subprocess.run(
            ["perf", "stat", "-x", ",", "-e", "instructions:u", "true"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(re.search(r"^\d+,[^,]*,instructions", p.stderr, re.M))


@functools.lru_cache(maxsize=1)
def valgrind_works() -> bool:
    """True when valgrind is installed (a software count: always works, slowly)."""
    return shutil.which("valgrind") is not None


def pick_tool(prefer: str = "auto") -> str | None:
    """ "perf" or "valgrind" as available; `prefer="perf"` never falls to valgrind (it is slow); None if none."""
    if prefer not in ("auto", "perf", "valgrind"):
        raise ValueError(f"unknown counting tool {prefer!r}; use auto, perf or valgrind")
    if prefer in ("auto", "perf") and perf_works():
        return "perf"
    if prefer in ("auto", "valgrind") and valgrind_works():
        return "valgrind"
    return None


def baseline_code(problem: dict[str, Any]) -> str:
    """A program that does nothing, shaped for the problem: its count is the interpreter's own cost."""
    if problem.get("test_type") != "call":
        return "pass\n"
    entry = (problem.get("entry_point") or "f").strip()
    if "()." in entry:
        cls, meth = (s.strip() for s in entry.split("().", 1))
        return f"class {cls}:\n    def {meth}(self, *a, **k):\n        return None\n"
    return f"def {entry}(*a, **k):\n    return None\n"


def count_instructions(
    sb: Sandbox,
    problem: dict[str, Any],
    code: str,
    inputs: Sequence[str],
    tool: str,
    *,
    time_limit_s: float = 120.0,
    memory_limit_mb: float = 4096.0,
) -> list[int] | str:
    """Instructions the program executes on each input (stdin text, or a call's JSON arguments).

    Returns the counts, or a string saying why there are none (tool failure, limit, sandbox error).
    """
    kind = problem.get("test_type") or "stdio"
    if kind not in ("stdio", "call"):
        return f"instruction counts need stdio or call tests, not {kind}"
    driver = _DRIVER.format(tool=tool, kind=kind, entry=problem.get("entry_point"), code=code)
    probe = {"test_type": "call", "entry_point": "measure", "tests": []}
    # The counts come back as the "wrong" return value of a test that expects null.
    tests = [{"input": json.dumps([list(inputs)]), "output": "null"}]
    r = sb.run(
        probe, driver, tests=tests, time_limit_s=time_limit_s, memory_limit_mb=memory_limit_mb
    )
    ff = r.first_failure or {}
    if r.verdict != "WA" or not ff.get("actual"):
        return f"counting run ended {r.verdict}: {r.error or ff.get('reason') or ff.get('stderr') or ''}"[
            :300
        ]
    try:
        value = json.loads(ff["actual"])
    except ValueError:
        return "counting run returned unreadable output"
    if isinstance(value, dict):
        return str(value.get("error", "counting failed"))[:300]
    if not isinstance(value, list) or len(value) != len(inputs):
        return "counting run returned the wrong number of counts"
    return [int(v) for v in value]
