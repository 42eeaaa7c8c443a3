"""C++ for the sandbox: the languages it judges, the compiler and its flags, a precompiled
`<bits/stdc++.h>` built once per machine, the compile's own limits, and compiled binaries kept
per sandbox so that a program is compiled once however often it runs.

The compile itself runs in a worker, confined like any run (`worker/native`); this module only
decides how. The precompiled header lives in a cache directory (`pch_root`) that every worker
sees read-only; it is built by the sandbox's own process, from the system's header, the first
time a C++ program is judged, and reused by every later sandbox on the machine.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from filters.sandbox.limits import Limits

__all__ = [
    "LANGUAGES",
    "CXX_FLAGS",
    "LINK_FLAGS",
    "COMPILE_LIMITS",
    "language_of",
    "pch_root",
    "Toolchain",
    "toolchain",
    "BinaryCache",
]

#: the languages the sandbox judges
LANGUAGES = ("python", "cpp")
_ALIASES = {
    "python": "python",
    "python3": "python",
    "py": "python",
    "py3": "python",
    "cpp": "cpp",
    "c++": "cpp",
    "cc": "cpp",
    "cxx": "cpp",
    "cpp17": "cpp",
    "c++17": "cpp",
    "gnu++17": "cpp",
}
#: how every C++ program is compiled (as on Codeforces: GNU C++17, -O2, ONLINE_JUDGE defined)
CXX_FLAGS = ("-O2", "-std=gnu++17", "-DONLINE_JUDGE", "-pipe")
#: linked statically where the system's static libraries allow it: a static executable starts in
#: half the CPU of a dynamic one (no loader, no relocations of libstdc++), and links as fast
LINK_FLAGS = ("-static",)
#: the compile's own limits: CPU time of the compiler's whole tree, its memory, and what it may
#: write (the executable and its messages); past any of them the program does not compile (CE)
COMPILE_LIMITS = Limits(
    time_s=10.0, memory_mb=1024.0, output_bytes=64 << 20, address_headroom_mb=1024.0
)
_HEADER = "bits/stdc++.h"


def language_of(name: str | None) -> str:
    """The sandbox's name for a language ("python" when none is given); ValueError when it
    judges no such language."""
    if name is None:
        return "python"
    key = str(name).strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"the sandbox judges {' and '.join(LANGUAGES)}, not {name!r}")
    return _ALIASES[key]


def pch_root() -> Path:
    """Where precompiled headers are cached: `$CODEMIX_CACHE/gxx-pch`; else, under root (where
    programs see only the system's directories), `/var/cache/codemix/gxx-pch`, which they see
    anyway (read-only: root's); else the user's cache directory. Made here, since every worker
    binds it at its start."""
    if os.environ.get("CODEMIX_CACHE"):
        path = Path(os.environ["CODEMIX_CACHE"]) / "gxx-pch"
    elif os.geteuid() == 0:
        path = Path("/var/cache/codemix/gxx-pch")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "codemix" / "gxx-pch"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class Toolchain:
    """The C++ compiler, the directory of its precompiled `<bits/stdc++.h>` (None when it could
    not be built: programs then compile without it, slower), and whether it links statically."""

    compiler: str
    pch_dir: str | None
    static: bool = False

    def command(self) -> tuple[str, ...]:
        """The compile's command, reading the source on stdin (the worker adds `-o`)."""
        include = ("-I", self.pch_dir) if self.pch_dir else ()
        link = LINK_FLAGS if self.static else ()
        return (self.compiler, *CXX_FLAGS, *link, *include, "-fmax-errors=20", "-x", "c++", "-")


def _system_header(compiler: str) -> Path | None:
    """Where the compiler finds `<bits/stdc++.h>`."""
    try:
        out = subprocess.run(
            [compiler, "-std=gnu++17", "-x", "c++", "-E", "-H", "-", "-o", os.devnull],
            input=f"#include <{_HEADER}>\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.stderr.splitlines():
        if line.startswith(". ") and line.endswith(_HEADER):
            return Path(line[2:].strip())
    return None


def _build_pch(compiler: str, root: Path) -> str | None:
    """The precompiled header's directory for this compiler and these flags, built once (under a
    lock, then renamed into place, so concurrent sandboxes never see half of one)."""
    try:
        version = subprocess.run(
            [compiler, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    header = _system_header(compiler)
    if header is None:
        return None
    key = hashlib.sha256(
        "\0".join([version, *CXX_FLAGS, str(header), str(header.stat().st_mtime_ns)]).encode()
    ).hexdigest()[:16]
    final = root / key
    if (final / (_HEADER + ".gch")).is_file():
        return str(final)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (final / (_HEADER + ".gch")).is_file():
            return str(final)
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
        try:
            (work / "bits").mkdir()
            shutil.copyfile(header, work / _HEADER)
            done = subprocess.run(
                [compiler, *CXX_FLAGS, "-x", "c++-header", str(work / _HEADER)]
                + ["-o", str(work / (_HEADER + ".gch"))],
                capture_output=True,
                timeout=300,
            )
            if done.returncode != 0:
                return None
            os.chmod(work, 0o755)
            os.replace(work, final)
        except (OSError, subprocess.TimeoutExpired):
            return None
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return str(final)


_lock = threading.Lock()


def _links_statically(compiler: str) -> bool:
    """Whether the system has the static libraries a static C++ executable needs."""
    with tempfile.TemporaryDirectory() as d:
        try:
            done = subprocess.run(
                [compiler, *CXX_FLAGS, *LINK_FLAGS, "-x", "c++", "-", "-o", os.path.join(d, "a")],
                input=b"#include <iostream>\nint main() { std::cout << 1; }\n",
                capture_output=True,
                timeout=120,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0


@functools.cache
def _toolchain(compiler: str | None, root: str | None) -> Toolchain | None:
    if compiler is None:
        return None
    try:
        pch = _build_pch(compiler, Path(root)) if root else None
    except OSError:  # a cache directory we may not write: compile without the header
        pch = None
    return Toolchain(compiler, pch, _links_statically(compiler))


def toolchain() -> Toolchain | None:
    """This machine's C++ toolchain (`CXX`, else `g++` on PATH), its precompiled header built
    the first time; None without a compiler."""
    found = shutil.which(os.environ.get("CXX") or "g++")
    compiler = os.path.realpath(found) if found else None
    try:
        root: str | None = str(pch_root())
    except OSError:  # no cache directory can be made: compile without the header
        root = None
    with _lock:
        return _toolchain(compiler, root)


class BinaryCache:
    """Compiled programs by source, least recently used dropped past `max_bytes`: a reference
    judged again (another hash seed, amplified inputs) runs without compiling again. A binary is
    only ever given to a run of the same source."""

    def __init__(self, max_bytes: int = 256 << 20) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[bytes, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(command: tuple[str, ...], source: bytes) -> str:
        return hashlib.sha256(b"\0".join([*(c.encode() for c in command), source])).hexdigest()

    def get(self, key: str) -> tuple[bytes, int] | None:
        """(the executable, its static memory in bytes), or None."""
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: str, binary: bytes, static_bytes: int) -> None:
        if len(binary) > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= len(old[0])
            self._items[key] = (binary, static_bytes)
            self._bytes += len(binary)
            while self._bytes > self.max_bytes:
                _, (b, _s) = self._items.popitem(last=False)
                self._bytes -= len(b)
