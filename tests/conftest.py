"""Shared test fixtures: the real data beside the repository, when present."""

from __future__ import annotations

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
