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
