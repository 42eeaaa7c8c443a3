"""Resource limits and isolation settings of one run, shared by the sandbox parent and its workers.

Stdlib only: the worker process loads this file by path, without importing the `filters` package.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

__all__ = [
    "Limits",
    "DEFAULT_TIME_LIMIT_S",
    "DEFAULT_MEMORY_LIMIT_MB",
    "DEFAULT_OUTPUT_LIMIT_BYTES",
]

DEFAULT_TIME_LIMIT_S = 10.0
DEFAULT_MEMORY_LIMIT_MB = 1024.0
DEFAULT_OUTPUT_LIMIT_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Per-test limits: CPU time counts against `time_s`; wall time only against a generous ceiling."""

    time_s: float = DEFAULT_TIME_LIMIT_S
    memory_mb: float = DEFAULT_MEMORY_LIMIT_MB
    output_bytes: int = DEFAULT_OUTPUT_LIMIT_BYTES
    nproc: int = 128
    nofile: int = 256
    #: Address space allowed above `memory_mb`: the interpreter's own mappings are not the program's.
    address_headroom_mb: float = 256.0

    @property
    def wall_s(self) -> float:
        """Ceiling on time spent blocked (not running nor runnable), against programs that sleep."""
        return 3.0 * self.time_s + 1.0

    @property
    def rlimit_cpu_s(self) -> int:
        """Whole seconds for RLIMIT_CPU: a backstop; the worker measures CPU time precisely."""
        return int(math.ceil(self.time_s)) + 1

    @property
    def address_bytes(self) -> int:
        return int((self.memory_mb + self.address_headroom_mb) * 1024 * 1024)

    def to_dict(self) -> dict:
        return asdict(self)
