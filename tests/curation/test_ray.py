"""The Ray executor runs the same stage code as the local one and writes the same build."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.record_files import write_jsonl
from tests.conftest import wait_s
from tests.curation.reproducible import comparable

pytest.importorskip("ray")
runner = CliRunner()


def test_ray_build_equals_local_build(tmp_path, monkeypatch):
    rows = [
        {
            "id": f"r{i}",
            "source": "toy",
            "statement": f"Print the square of {i}.",
            "test_type": "stdio",
            "tests": [{"input": "", "output": f"{i * i}\n"}] * 5,
            "solutions": [f"print({i} * {i})"],
        }
        for i in range(1, 21)  # (print(0 * 0)'s mutants all print 0: weak_tests)
    ]
    rows.append(dict(rows[3]))
    write_jsonl(rows, tmp_path / "toy.jsonl")
    builds = []
    monkeypatch.chdir(tmp_path)  # a relative --out: made absolute before tasks see it
    for executor in ("local", "ray"):
        out = tmp_path / executor
        r = runner.invoke(
            app,
            [
                "build",
                "--source",
                str(tmp_path / "toy.jsonl"),
                "--out",
                executor,
                "--batch-rows",
                "4",
                "--executor",
                executor,
                "--workers",
                "2",
            ],
        )
        assert r.exit_code == 0, r.output
        builds.append(comparable(out))
    local, ray = builds
    import json

    isolation = json.loads((tmp_path / "ray" / "manifest.json").read_text())["environment"]["verify"]
    assert isolation["tasks_reporting"] >= 5  # each verify task checked its own worker (6 units)
    assert "isolation" in isolation
    assert local["manifest"]["counts"]["output"] == {"toy": 20}
    for part in ("manifest", "problems", "rejected"):
        assert local[part] == ray[part], part


@pytest.fixture(scope="module")
def ray_instance():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _units(tmp_path, n_rows: int, batch_rows: int):
    rows = [{"id": f"u{i}", "source": "toy", "statement": f"Print {i}.", "test_type": "stdio",
             "tests": [{"input": "", "output": f"{i}\n"}], "solutions": [f"print({i})"]} for i in range(n_rows)]  # fmt: skip
    write_jsonl(rows, tmp_path / "rows.jsonl")
    from curation.sources import get_source, iter_source

    return iter_source(get_source("canonical"), str(tmp_path / "rows.jsonl"))


def _failing_stage(attempts_dir, fail_unit_row: str, times: int, sleep_s: float = 0.0):
    """A row stage that fails (OSError) or hangs on the unit holding `fail_unit_row` the first
    `times` times it judges it; each attempt leaves a file, so the count survives the worker."""
    import time as _time

    from filters.stage import Decision, RowStage

    class Flaky(RowStage):
        name = "flaky"

        def judge_rows(self, rows):
            if any(r["problem_id"].endswith(fail_unit_row) for r in rows):
                tries = len(list(attempts_dir.glob("try-*")))
                (attempts_dir / f"try-{tries}").write_text("")
                if tries < times:
                    if sleep_s:
                        _time.sleep(sleep_s)
                    raise OSError(f"disk went away (try {tries})")
            return [Decision(True) for _ in rows]

    return Flaky()


def test_a_failing_task_is_retried_and_said_on_the_driver(tmp_path, ray_instance):
    from curation.executors import RayExecutor
    from curation.pipeline import Pipeline

    attempts = tmp_path / "attempts"
    attempts.mkdir()
    said: list[str] = []
    ex = RayExecutor(retries=2, say=said.append)
    pipe = Pipeline(tmp_path / "work", [_failing_stage(attempts, "/u5", times=2)], batch_rows=4, executor=ex)
    runs = pipe.run(_units(tmp_path, 10, 4))
    assert sum(runs[-1].kept.values()) == 10
    assert len(said) == 2 and all("stage flaky, unit 1" in s and "OSError: disk went away" in s for s in said)


def test_past_the_retry_limit_the_build_stops_naming_the_unit_and_error(tmp_path, ray_instance):
    from curation.executors import RayExecutor, TaskFailed
    from curation.pipeline import Pipeline

    attempts = tmp_path / "attempts"
    attempts.mkdir()
    ex = RayExecutor(retries=1, say=lambda line: None)
    pipe = Pipeline(tmp_path / "work", [_failing_stage(attempts, "/u9", times=99)], batch_rows=4, executor=ex)
    with pytest.raises(TaskFailed, match=r"stage flaky, unit 2, rows \d+-\d+ failed 2 times; last error: OSError: disk went away \(try 1\)"):
        pipe.run(_units(tmp_path, 10, 4))
    assert len(list(attempts.glob("try-*"))) == 2


def test_a_task_past_its_time_limit_is_cancelled_and_retried(tmp_path, ray_instance):
    from curation.executors import RayExecutor
    from curation.pipeline import Pipeline

    attempts = tmp_path / "attempts"
    attempts.mkdir()
    said: list[str] = []
    # the limit is a hang guard scaled with the load (a task's clock starts when it is submitted,
    # so on a busy machine a task queued behind others may pass a fixed 5 s too, and be retried)
    limit = round(wait_s(5))
    ex = RayExecutor(retries=1, task_timeout_s=limit, say=said.append)
    pipe = Pipeline(tmp_path / "work", [_failing_stage(attempts, "/u0", times=1, sleep_s=600)], batch_rows=4, executor=ex)
    runs = pipe.run(_units(tmp_path, 6, 4))
    assert sum(runs[-1].kept.values()) == 6
    assert any("stage flaky, unit 0, rows 0-1" in s for s in said), said
    assert said and all(f"timed out after {limit:g} s" in s and "retrying" in s for s in said), said


def test_consecutive_row_stages_stream_a_unit_on_without_a_barrier(tmp_path, ray_instance):
    """Unit 1 holds stage `first` until stage `second` has judged units 0 and 2: with a barrier
    between the stages that never happens, and the held task fails (no retries)."""
    import time as _time

    from curation.executors import RayExecutor
    from curation.pipeline import Pipeline
    from filters.stage import Decision, RowStage

    seen = tmp_path / "seen"
    seen.mkdir()

    class First(RowStage):
        name = "first"

        def judge_rows(self, rows):
            if any(r["problem_id"].endswith("/u5") for r in rows):
                for _ in range(600):  # a bound, so that a barrier fails the test instead of hanging it
                    if {p.name for p in seen.iterdir()} >= {"unit-with-u0", "unit-with-u9"}:
                        break
                    _time.sleep(0.5)
                else:
                    raise RuntimeError("the second stage never saw the other units: a barrier")
            return [Decision(True) for _ in rows]

    class Second(RowStage):
        name = "second"

        def judge_rows(self, rows):
            for r in rows:
                (seen / f"unit-with-{r['problem_id'].split('/')[-1]}").write_text("")
            return [Decision(True) for _ in rows]

    ex = RayExecutor(retries=0, say=lambda line: None)
    pipe = Pipeline(tmp_path / "work", [First(), Second()], batch_rows=4, executor=ex)
    runs = pipe.run(_units(tmp_path, 10, 4))
    assert [sum(r.kept.values()) for r in runs] == [10, 10, 10]
    assert len(list(seen.iterdir())) == 10


def test_a_lost_task_loses_at_most_the_chunk_it_was_judging(tmp_path, ray_instance):
    """The worker judging u5 dies (os._exit); the unit's other slices were tasks of their own
    (slices of at most a chunk, here 1 row: 8 rows for 2 CPUs), so only u5's slice is judged twice."""
    import os as _os

    from curation.executors import RayExecutor
    from curation.pipeline import Pipeline
    from filters.stage import Decision, RowStage

    judged = tmp_path / "judged"
    judged.mkdir()

    class Dies(RowStage):
        name = "dies"

        def judge_rows(self, rows):
            for r in rows:
                pid = r["problem_id"].split("/")[-1]
                (judged / f"{pid}-{len(list(judged.glob(pid + '-*')))}").write_text("")
                if pid == "u5" and not (tmp_path / "died").exists():
                    (tmp_path / "died").write_text("")
                    _os._exit(1)  # the worker process is gone, as with a lost node
            return [Decision(True) for _ in rows]

    said: list[str] = []
    ex = RayExecutor(retries=1, say=said.append)
    pipe = Pipeline(tmp_path / "work", [Dies()], batch_rows=8, executor=ex, chunk_rows=2, part_after_s=0.0)
    runs = pipe.run(_units(tmp_path, 8, 8))
    assert sum(runs[-1].kept.values()) == 8
    twice = sorted(p.name.rsplit("-", 1)[0] for p in judged.glob("*-1"))
    assert twice == ["u5"]  # the slice it was judging; the others were committed by their tasks
    assert len(said) == 1 and "unit 0, rows 5-6" in said[0]


class _Recording:
    """A row stage (made by a factory, as a build makes its sandboxed stages) that keeps every row,
    notes each row it judges in `judged/` and each time it is made in `made/` (per process)."""

    def __init__(self, root, name: str) -> None:
        self.root, self.name = root, name

    def __call__(self, workers: int = 1):
        import os as _os

        from filters.stage import Decision, RowStage

        root, name = self.root, self.name
        if workers > 1:  # a task holding `workers` CPUs made it: say how many Ray gave it
            import ray

            (root / "wide").mkdir(exist_ok=True)
            given = ray.get_runtime_context().get_assigned_resources().get("CPU", 0)
            (root / "wide" / f"{name}-{workers}-{given:g}").write_text("")
        (root / "made").mkdir(exist_ok=True)
        (root / "made" / f"{name}-{_os.getpid()}-{len(list((root / 'made').iterdir()))}").write_text("")

        class Recording(RowStage):
            def judge_rows(self, rows):
                (root / "judged").mkdir(exist_ok=True)
                out = []
                for r in rows:
                    pid = r["problem_id"].split("/")[-1]
                    (root / "judged" / f"{name}-{pid}-{len(list((root / 'judged').glob(f'{name}-{pid}-*')))}").write_text("")  # fmt: skip
                    out.append(Decision(True) if name == "second" or not pid.endswith("3") else Decision.drop("ends_in_3"))
                return out

        st = Recording()
        st.name = name
        return st


def test_a_worker_makes_each_row_stage_once_and_a_killed_driver_resumes_the_slices(tmp_path, ray_instance):
    """Slices of two row stages: each worker process makes a stage once for all its tasks; a driver
    stopped after some slices resumes with those kept (no row judged twice) and the merged units
    equal a build that ran through."""
    from curation.executors import RayExecutor
    from curation.pipeline import Pipeline

    def run(work, root, stop_after=None):
        stages = [_Recording(root, "first")(), _Recording(root, "second")()]
        factories = {"first": _Recording(root, "first"), "second": _Recording(root, "second")}
        seen = [0]

        def progress(stage, done, total, extra):
            if stop_after is not None and stage == "second" and done >= stop_after:
                seen[0] += 1
                raise KeyboardInterrupt

        ex = RayExecutor(retries=0, say=lambda line: None)
        pipe = Pipeline(work, stages, batch_rows=12, executor=ex, factories=factories, progress=progress)
        return pipe, pipe.run(_units(tmp_path, 30, 12))

    whole_root, cut_root = tmp_path / "whole", tmp_path / "cut"
    whole_root.mkdir()
    cut_root.mkdir()
    whole, runs = run(tmp_path / "w1", whole_root)
    assert [sum(r.kept.values()) for r in runs] == [30, 27, 27]
    made = list((whole_root / "made").iterdir())
    pids = {p.name.split("-")[1] for p in made}
    # 2 made on the driver; in the workers one per stage and process, not one per task (30 rows
    # on 2 CPUs are about 30 slices)
    assert len(made) - 2 == 2 * len(pids - {str(__import__("os").getpid())})
    assert len(made) - 2 <= 2 * 3

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path / "w2", cut_root, stop_after=5)
    assert list((tmp_path / "w2").glob("*/unit-*.slices/rows-*.json"))  # slices kept
    judged_before = {p.name.rsplit("-", 1)[0] for p in (cut_root / "judged").iterdir()}
    resumed, _ = run(tmp_path / "w2", cut_root)
    again = [p.name for p in (cut_root / "judged").iterdir() if not p.name.endswith("-0")]
    # a row judged twice is one a stopped task was judging (at most one slice per CPU)
    assert len(again) <= 2 * 2, again
    assert judged_before  # some were kept
    assert not list((tmp_path / "w2").glob("*/unit-*.slices"))
    for a, b in zip(whole.kept(), resumed.kept(), strict=True):
        assert a.to_pylist() == b.to_pylist()
    for a, b in zip(whole.rejected(), resumed.rejected(), strict=True):
        assert a.to_pylist() == b.to_pylist()


def test_a_slice_with_a_heavy_problem_holds_more_cpus_and_its_stage_as_many_workers(tmp_path, ray_instance):
    """A problem whose rows' bytes are most of the stage's work (a long suite) would run alone on
    one CPU at the end: its slice holds both CPUs of the node (`WIDE_SHARE`), each stage of it made
    with two sandbox workers; the other slices hold one, and the build keeps every row."""
    from curation.executors import RayExecutor
    from curation.pipeline import Pipeline

    rows = [{"id": f"u{i}", "source": "toy", "statement": f"Print {i}.", "test_type": "stdio",
             "tests": [{"input": "x" * (30000 if i == 7 else 1), "output": f"{i}\n"}] * (20 if i == 7 else 1),
             "solutions": [f"print({i})"]} for i in range(30)]  # fmt: skip
    write_jsonl(rows, tmp_path / "rows.jsonl")
    from curation.sources import get_source, iter_source

    root = tmp_path / "root"
    root.mkdir()
    stages = [_Recording(root, "first")(), _Recording(root, "second")()]
    factories = {"first": _Recording(root, "first"), "second": _Recording(root, "second")}
    ex = RayExecutor(retries=0, say=lambda line: None)
    assert ex.widest() == 2
    pipe = Pipeline(tmp_path / "w", stages, batch_rows=12, executor=ex, factories=factories)
    runs = pipe.run(iter_source(get_source("canonical"), str(tmp_path / "rows.jsonl")))
    assert [sum(r.kept.values()) for r in runs] == [30, 27, 27]
    # both stages of the heavy slice, each made once, with two workers, in a task Ray gave 2 CPUs
    assert sorted(p.name for p in (root / "wide").iterdir()) == ["first-2-2", "second-2-2"]
