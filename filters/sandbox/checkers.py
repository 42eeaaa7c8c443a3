"""Special judges: what a problem's `checker` is, and how a C++ one is made ready.

A record's `checker` is one of three kinds (`checker_kind`):

- `python`: Python source defining `check(input, expected, actual) -> bool` (open-r1
  Codeforces' `generated_checker`, wrapped by its loader), run in a child of its own;
- `testlib`: C++ source written against testlib (`#include "testlib.h"`, as CodeContests+ and
  CodeContests-O ship them), called `checker <input> <output> <answer>`;
- `standard`: the name of one of testlib's 21 standard checkers (`wcmp`, `rcmp6`, `yesno`,
  `uncmp`, ...: `STANDARD`), which the sandbox compiles from the sources shipped with codemix.

testlib.h and the standard checkers ship inside the package, unchanged, under their MIT licence
(`filters/data/testlib/`, with its LICENSE); `CODEMIX_TESTLIB` names another directory that
holds a `testlib.h` (and, optionally, `checkers/NAME.cpp`). A C++ checker compiles once per
machine: in a confined run of the sandbox like a program's, against a copy of testlib.h (and its
precompiled form) put in the compile cache every worker sees, and its executable is kept on disk
by the hash of its source, testlib.h and the compile command (`CheckerCache`).

A testlib checker answers by its exit status: 0 OK, 1 WA, 2 PE (wrong output format), 3 FAIL
(the checker or the jury's answer is wrong), 7 points (a scored checker: `pointscmp`,
`pointsinfo`). `verdict_of` says what each is: AC, WA (PE and points too: never a pass), or SE
for FAIL, a crash, a timeout or any other status (an infrastructure error, no reward).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from filters.sandbox import cpp
from filters.sandbox.limits import Limits

__all__ = [
    "STANDARD",
    "TESTLIB_EXIT",
    "checker_kind",
    "testlib_dir",
    "checker_source",
    "testlib_include",
    "checker_command",
    "CheckerCache",
    "CHECKER_COMPILE_LIMITS",
    "verdict_of",
    "check_time_s",
    "standard_name",
]

#: testlib's standard checkers (`filters/data/testlib/checkers/NAME.cpp`)
STANDARD = (
    "acmp", "caseicmp", "casencmp", "casewcmp", "dcmp", "fcmp", "hcmp", "icmp", "lcmp", "ncmp",
    "nyesno", "pointscmp", "pointsinfo", "rcmp", "rcmp4", "rcmp6", "rcmp9", "rncmp", "uncmp",
    "wcmp", "yesno",
)  # fmt: skip
#: a testlib checker's exit statuses (testlib.h's defaults)
TESTLIB_EXIT = {0: "OK", 1: "WA", 2: "PE", 3: "FAIL", 4: "DIRT", 7: "POINTS", 8: "UNEXPECTED_EOF"}
#: a checker's compile: testlib.h is long, a loaded machine slow
CHECKER_COMPILE_LIMITS = Limits(
    time_s=60.0, memory_mb=1536.0, output_bytes=64 << 20, address_headroom_mb=1024.0
)
_SHIPPED = Path(__file__).resolve().parent.parent / "data" / "testlib"
_TESTLIB_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]testlib\.h[>"]', re.M)


def checker_kind(checker: str | None) -> str | None:
    """`standard`, `testlib` or `python` (None: no checker). A standard checker is its bare
    name (`rcmp6`, or `testlib:rcmp6`); C++ source includes testlib.h."""
    if not checker or not checker.strip():
        return None
    name = checker.strip()
    if name.startswith("testlib:"):
        name = name[len("testlib:") :]
    if name in STANDARD:
        return "standard"
    if _TESTLIB_INCLUDE.search(checker) or "registerTestlibCmd" in checker:
        return "testlib"
    return "python"


def standard_name(checker: str) -> str:
    """`rcmp6` of `rcmp6` or `testlib:rcmp6`."""
    name = checker.strip()
    return name[len("testlib:") :] if name.startswith("testlib:") else name


def testlib_dir() -> Path:
    """The directory holding testlib.h: `CODEMIX_TESTLIB`, else the copy shipped with codemix.
    FileNotFoundError when it has no testlib.h."""
    path = Path(os.environ.get("CODEMIX_TESTLIB") or _SHIPPED)
    if not (path / "testlib.h").is_file():
        raise FileNotFoundError(
            f"no testlib.h in {path} (set CODEMIX_TESTLIB to a directory that holds one)"
        )
    return path


def checker_source(checker: str) -> str:
    """The C++ source of a `testlib` or `standard` checker."""
    if checker_kind(checker) == "standard":
        name = standard_name(checker)
        for root in (testlib_dir(), _SHIPPED):
            path = root / "checkers" / f"{name}.cpp"
            if path.is_file():
                return path.read_text(encoding="utf-8")
        raise FileNotFoundError(f"no source for the standard checker {name}")
    return checker


@cache
def _include(compiler: str, header: str, root: str) -> str:
    """A directory under the compile cache (which every worker sees) with a copy of testlib.h
    and, where it builds, its precompiled form; made once, under a lock, renamed into place."""
    data = Path(header).read_bytes()
    version = subprocess.run(
        [compiler, "--version"], capture_output=True, text=True, timeout=30
    ).stdout
    key = hashlib.sha256(
        "\0".join([version, *cpp.CXX_FLAGS]).encode() + b"\0" + data
    ).hexdigest()[:16]
    base = Path(root) / "testlib"
    final = base / key
    if (final / "testlib.h").is_file():
        return str(final)
    base.mkdir(parents=True, exist_ok=True)
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (final / "testlib.h").is_file():
            return str(final)
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=base))
        try:
            (work / "testlib.h").write_bytes(data)
            try:  # without it a checker compiles all the same, slower
                subprocess.run(
                    [compiler, *cpp.CXX_FLAGS, "-x", "c++-header", str(work / "testlib.h"),
                     "-o", str(work / "testlib.h.gch")],
                    capture_output=True, timeout=600, check=True,
                )  # fmt: skip
            except (OSError, subprocess.SubprocessError):
                (work / "testlib.h.gch").unlink(missing_ok=True)
            os.chmod(work, 0o755)
            for f in work.iterdir():
                os.chmod(f, 0o644)
            os.replace(work, final)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return str(final)


def testlib_include(tc: cpp.Toolchain) -> str:
    """The directory a checker's compile finds testlib.h in (inside the compile cache)."""
    return _include(tc.compiler, str(testlib_dir() / "testlib.h"), str(cpp.pch_root()))


def checker_command(tc: cpp.Toolchain) -> tuple[str, ...]:
    """How a C++ checker is compiled: as a program is, with testlib.h found (and precompiled)."""
    link = cpp.LINK_FLAGS if tc.static else ()
    return (tc.compiler, *cpp.CXX_FLAGS, *link, "-I", testlib_include(tc), "-fmax-errors=20",
            "-x", "c++", "-")  # fmt: skip


class CheckerCache:
    """Compiled checkers on disk, by the hash of their compile command and source (the command
    names testlib.h's directory, itself named by its hash): a checker compiles once per machine,
    whatever sandbox or process judges with it. `$CODEMIX_CACHE/gxx-checkers`, else beside the
    precompiled headers."""

    #: checkers that did not compile, by key, with why (in this process: a build judging many
    #: programs against one broken checker compiles it once)
    failed: dict[str, str] = {}

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cpp.pch_root().parent / "gxx-checkers"

    @staticmethod
    def key(command: tuple[str, ...], source: bytes) -> str:
        return hashlib.sha256(b"\0".join([*(c.encode() for c in command), source])).hexdigest()

    @contextlib.contextmanager
    def compiling(self, key: str) -> Iterator[None]:
        """Held while a checker is looked up and compiled: a sandbox's workers (or another
        build on the machine) wanting the same checker wait for its one compile."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            lock = open(self.root / f".{key[:16]}.lock", "w")
        except OSError:
            yield
            return
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def get(self, key: str) -> bytes | None:
        try:
            return (self.root / key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, binary: bytes) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(binary)
            os.replace(tmp, self.root / key)
        except OSError:
            pass  # a cache we may not write: compiled again next time


def check_time_s(program_time_s: float) -> float:
    """A C++ checker's CPU limit on one output: twice the program's, at least 2 s (reading an
    output with testlib may take longer than a fast program took to write it)."""
    return max(2.0, 2.0 * program_time_s)


def verdict_of(status: str, exit_text: str | None) -> tuple[str, str | None]:
    """A C++ checker's run (its sandbox status and `exit N` / `signal NAME`) as (verdict,
    testlib's name for it): AC, WA (WA, PE, points), or SE (FAIL, a crash, a limit)."""
    if status == "OK":
        return "AC", "OK"
    if status == "RE" and exit_text and exit_text.startswith("exit "):
        name = TESTLIB_EXIT.get(int(exit_text.split()[1]))
        if name in ("WA", "PE", "DIRT", "POINTS", "UNEXPECTED_EOF"):
            return "WA", name
        if name == "FAIL":
            return "SE", name
    return "SE", None
