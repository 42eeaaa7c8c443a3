"""Shared test fixtures: the real data beside the repository, when present; waits that scale with
the machine's load."""

from __future__ import annotations

import os
import time
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_file(name: str) -> Path:
    """Path of a file in ../shared/data, or skip the calling test when it is absent."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is absent (real data lives in ../shared/data)")
    return path


@pytest.fixture
def shared_data() -> Path:
    """The ../shared/data directory, or skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent")
    return SHARED_DATA


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> Path:
    """`codemix build --out OUT --workers 2` of the embedded demo corpus, made once per session.
    Read it only: a test that changes a build copies it first (`shutil.copytree`)."""
    from typer.testing import CliRunner

    from curation.cli import app

    out = tmp_path_factory.mktemp("demo-build") / "demo"
    r = CliRunner().invoke(app, ["build", "--out", str(out), "--workers", "2"])
    assert r.exit_code == 0, r.output
    return out


@cache
def _slowdown_measured() -> float:
    """How many times longer than its CPU time a fixed piece of work (0.1 CPU-seconds) took here,
    measured once per test process: 1 on an idle machine, about 5 at a load of 10 on two cores."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.process_time() - cpu0 < 0.1:
        pass
    return (time.perf_counter() - wall0) / max(time.process_time() - cpu0, 1e-9)


def slowdown() -> float:
    """How much slower than on an idle machine work runs now (at least 1): the larger of the
    measured baseline (`_slowdown_measured`) and the load average per core now."""
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return max(1.0, _slowdown_measured(), per_core)


def wait_s(idle_seconds: float) -> float:
    """A timeout for something that takes well under `idle_seconds` on an idle machine, scaled with
    the load (`slowdown`): a hang guard, never a bound on speed (a test checks what a command does,
    not how fast; speed is benchmarks/' business)."""
    return idle_seconds * slowdown()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The ini's pytest-timeout (a hang guard, 300 s) and every `@pytest.mark.timeout(N)`, scaled
    with the load measured now (`slowdown`), so that a busy machine slows the suite, never fails it."""
    try:
        base = float(config.getini("timeout") or 0)
    except (ValueError, KeyError):  # pytest-timeout not installed
        return
    factor = slowdown()
    for item in items:
        marker = item.get_closest_marker("timeout")
        seconds = float(marker.args[0]) if marker is not None and marker.args else base
        if seconds > 0:
            item.add_marker(pytest.mark.timeout(seconds * factor))
