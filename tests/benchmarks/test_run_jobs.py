"""run_jobs gives runs back in job order, whether they ran in parallel or came from the cache."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "mixing"))

from mixbench.common import MixerSpec, run_jobs  # noqa: E402


def slow_first(spec: MixerSpec, seed: int, cfg: dict) -> dict:
    time.sleep(0.4 if seed == 0 else 0.0)  # the first job finishes last
    return {"label": spec.label, "seed": seed}


def test_runs_come_back_in_job_order(tmp_path):
    """Bug: parallel runs came back in completion order and cached ones first, so two identical
    benchmark runs listed their arms in different orders."""
    jobs = [{"spec": MixerSpec("uniform", "uniform"), "seed": s, "cfg": {"k": 1}} for s in range(4)]
    want = [("uniform", s) for s in range(4)]
    got = run_jobs(slow_first, jobs, 2, log=lambda _: None, cache=tmp_path)
    assert [(r["label"], r["seed"]) for r in got] == want
    (tmp_path / next(p.name for p in tmp_path.iterdir())).unlink()  # one run must be redone
    again = run_jobs(slow_first, jobs, 2, log=lambda _: None, cache=tmp_path)
    assert [(r["label"], r["seed"]) for r in again] == want


def test_a_run_cached_without_the_shared_data_is_not_reused_with_it(tmp_path, monkeypatch):
    """B1 drops its `problems` domain when ../shared/data is absent: a cache shared between two
    checkouts, one with and one without it, mixed 4-domain and 5-domain runs under one key."""
    import mixbench.domains as domains

    jobs = [{"spec": MixerSpec("uniform", "uniform"), "seed": 0, "cfg": {"k": 1}}]
    monkeypatch.setattr(domains, "SHARED_DATA", tmp_path / "absent")
    run_jobs(slow_first, jobs, 1, log=lambda _: None, cache=tmp_path / "cache")
    monkeypatch.setattr(domains, "SHARED_DATA", tmp_path)  # now "present"
    logs = []
    run_jobs(slow_first, jobs, 1, log=logs.append, cache=tmp_path / "cache")
    assert not any("reusing" in line for line in logs)
    assert len(list((tmp_path / "cache").iterdir())) == 2
