"""B3 v3's frozen inputs (issue 53): the held-out families (a second held-out set of families no
training problem comes from), the prior from other models laid over B3 v2's export, and every run
evaluating the families beside the first held-out set without changing its training."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from code_rl import report  # noqa: E402
from code_rl.families import pretrain_pairs, problems  # noqa: E402
from code_rl.families_v2 import TARGET_SOURCES, V2  # noqa: E402
from code_rl.families_v3 import FAMILY_SOURCES, HELD_OUT_FAMILIES, SPLIT  # noqa: E402
from code_rl.frozen import load_frozen  # noqa: E402

CODE_RL = ROOT / "benchmarks" / "code_rl"
V3 = CODE_RL / "frozen" / "v3-small"
V2_DIR = CODE_RL / "frozen" / "v2-small"


def _template(statement: str) -> str:
    """A problem's statement without its worked example."""
    return statement.split(" For example")[0]


def _family(problem_id: str) -> str:
    """The family of a problem id (`source/family-constants`)."""
    name = problem_id.split("/", 1)[1]
    return next(f.name for f in HELD_OUT_FAMILIES.families if name.startswith(f.name + "-"))


def test_the_held_out_families_are_frozen_and_no_training_problem_comes_from_them() -> None:
    """The overlay loads on B3 v2's inputs (both fingerprints checked); its families split is the
    build of `families_v3.py`'s problems (each kept problem one of them, every family present);
    no family, statement or problem of it is among v2's RL problems (train and the first held-out
    split) or pre-training settings."""
    pytest.importorskip("datasets", reason="the frozen export is a Hugging Face dataset")
    from datasets import load_from_disk

    inputs = load_frozen(V3)
    assert inputs is not None and inputs["record"]["base"]["folder"] == "v2-small"
    assert inputs["model"] == load_frozen(V2_DIR)["model"]  # the same frozen policy
    fam = load_from_disk(inputs["data"]["files"]["families"])[SPLIT]
    rec = inputs["record"]
    assert len(fam) == rec["start"]["families"]["problems"] == 159
    assert rec["families"]["counts"]["output"] == {s: 40 for s in FAMILY_SOURCES} | {"lists": 39}
    built = {f"{r['source']}/{r['id']}": r for r in problems(tasks=HELD_OUT_FAMILIES)}
    assert set(fam["problem_id"]) <= set(built) and len(built) == 160
    assert {_family(p) for p in fam["problem_id"]} == {f.name for f in HELD_OUT_FAMILIES.families}
    assert len(HELD_OUT_FAMILIES.families) == 12

    v2_names = {f.name for f in V2.families}
    assert not v2_names & {f.name for f in HELD_OUT_FAMILIES.families}
    v2 = load_from_disk(inputs["data"]["trl"])
    assert not set(fam["problem_id"]) & set(
        list(v2["train"]["problem_id"]) + list(v2["test"]["problem_id"])
    )
    seen = {_template(r["statement"]) for r in problems(tasks=V2)}
    seen |= {_template(r["statement"]) for r, _ in pretrain_pairs(V2)}
    assert not {_template(built[p]["statement"]) for p in fam["problem_id"]} & seen
    # each prompt is its problem's statement, as the first set's prompts are
    for pid, prompt in zip(fam["problem_id"], fam["prompt"], strict=True):
        assert prompt[0]["content"].startswith(built[pid]["statement"])


def test_the_held_out_families_are_graded_as_the_runs_grade() -> None:
    """Every problem of the set: its reference passes its frozen tests and a wrong program fails,
    graded by the sandbox through the reward the runs train and evaluate with."""
    pytest.importorskip("psutil", reason="the benchmark's loop needs the trl extra")
    from code_rl.rollout import grade
    from datasets import load_from_disk

    fam = load_from_disk(str(V3 / "families"))[SPLIT]
    built = {f"{r['source']}/{r['id']}": r for r in problems(tasks=HELD_OUT_FAMILIES)}
    refs = [f"```python\n{built[p]['solutions'][1]}```" for p in fam["problem_id"]]
    wrong = ["```python\ndef f(*args):\n    return 0\n```"] * len(fam)
    got = grade(list(fam["ground_truth"]) * 2, refs + wrong)
    assert (got[: len(fam)] == 1.0).all()
    assert (got[len(fam) :] < 1.0).all()


def test_the_v3_prior_replaces_the_difficulty_and_nothing_else() -> None:
    """`with_prior` on v2's train split with the frozen prior: the difficulty is the committed fit
    of the other models' rollouts (results/v3-prior/prior.json), it orders the policy's step-0
    pass rates as b3v3.md section 6c says (-0.603), and every other column is v2's; the offline
    filter on the frozen rollouts keeps the train problems those models pass sometimes."""
    pytest.importorskip("psutil", reason="the benchmark's loop needs the trl extra")
    from code_rl.grpo import offline_filter, ranking_pass_rates, with_prior
    from code_rl.other_prior import compare
    from datasets import load_from_disk

    prior = json.loads((V3 / "difficulty.json").read_text())
    train = load_from_disk(str(V2_DIR / "trl"))["train"]
    mine = with_prior(train, prior)
    assert mine.features == train.features and len(mine) == len(train)
    for col in ("prompt", "problem_id", "source", "ground_truth"):
        assert list(mine[col]) == list(train[col])
    fitted = json.loads((CODE_RL / "results" / "v3-prior" / "prior.json").read_text())
    assert list(mine["difficulty"]) == [fitted["difficulty"][p] for p in train["problem_id"]]
    assert list(mine["difficulty"]) != list(train["difficulty"])
    assert sorted(set(mine["difficulty_bucket"])) == [0, 1, 2, 3, 4]
    probe = json.loads((CODE_RL / "results" / "v3-prior" / "policy-probe.json").read_text())
    got = compare(dict(zip(mine["problem_id"], mine["difficulty"], strict=True)), probe,
                  dict(zip(mine["problem_id"], mine["source"], strict=True)))  # fmt: skip
    assert got["overall"] == pytest.approx(-0.603, abs=1e-3)
    rates = ranking_pass_rates(V3 / "rollouts.jsonl")
    kept = offline_filter(mine, rates, (1e-9, 1 - 1e-9))
    assert len(kept) == 152 and all(0 < rates[p] < 1 for p in kept["problem_id"])
    with pytest.raises(ValueError, match="no difficulty"):
        with_prior(train, {})


def test_every_run_evaluates_the_families_beside_the_first_set() -> None:
    """run_lean on the frozen policy with the families set: every evaluation holds its pass@1
    (per source of the set), and the run's training, trace and first held-out curve are those of
    the same run without it (it is evaluated on a forked random state). The registered measure
    then reports final pass@1 on both sets paired against uniform, and table_v3 shows both."""
    pytest.importorskip("transformers", reason="the benchmark's model needs the trl extra")
    pytest.importorskip("psutil", reason="the benchmark's loop needs the trl extra")
    from code_rl.bench import ARMS
    from code_rl.grpo import RunConfig, run_lean, with_prior
    from code_rl.model import load
    from datasets import load_from_disk

    frozen_files = sorted(p for d in (V2_DIR, V3) for p in d.rglob("*"))
    ds = load_from_disk(str(V2_DIR / "trl"))
    prior = json.loads((V3 / "difficulty.json").read_text())
    train = with_prior(ds["train"].select(range(0, 480, 12)), prior)
    # no cache file beside the frozen inputs (a selection flattened by add_column wrote one)
    assert sorted(p for d in (V2_DIR, V3) for p in d.rglob("*")) == frozen_files
    held = ds["test"].select(range(0, 240, 24))
    fam = load_from_disk(str(V3 / "families"))[SPLIT].select(range(0, 159, 16))
    cfg = RunConfig(steps=2, prompts=2, group=2, max_new_tokens=24, eval_every=1, eval_samples=1,
                    final_samples=2, lr=1e-4, schedule="constant", target=tuple(TARGET_SOURCES))  # fmt: skip

    def run(arm: str, seed: int, families: object) -> dict:
        model, tok = load(V2_DIR / "checkpoint")
        return run_lean(model, tok, train, held, ARMS[arm], cfg, seed=seed, families=families)

    plain, both = run("uniform", 0, None), run("uniform", 0, fam)
    assert len(both["curve"]) == 3
    for p in both["curve"]:
        assert 0.0 <= p["pass1_families"] <= 1.0
        assert set(p["families_per_source"]) <= set(FAMILY_SOURCES)
    assert all("pass1_families" not in p for p in plain["curve"])
    same = ("pass1", "pass1_target", "per_source", "rollouts", "generated_tokens", "step")
    for a, b in zip(plain["curve"], both["curve"], strict=True):
        assert {k: a[k] for k in same} == {k: b[k] for k in same}
    assert plain["trace"] == both["trace"] and plain["weights"] == both["weights"]

    runs = {"uniform": {0: both, 1: run("uniform", 1, fam)}}
    runs["stack"] = {s: run("stack", s, fam) for s in (0, 1)}
    m = report.registered_measure(runs, 0.4, 8.0, boots=20)
    fin = m["arms"]["stack"]["final"]
    for key in (report.METRIC, report.FAMILIES_METRIC):
        d = np.array([runs["stack"][s]["curve"][-1][key] - runs["uniform"][s]["curve"][-1][key]
                      for s in (0, 1)])  # fmt: skip
        assert fin[key]["vs"]["uniform"]["diff"] == pytest.approx(d.mean())
        assert fin[key]["vs"]["uniform"]["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(2))
        assert fin[key]["mean"] == pytest.approx(
            np.mean([runs["stack"][s]["curve"][-1][key] for s in (0, 1)])
        )
    assert sorted(p for d in (V2_DIR, V3) for p in d.rglob("*")) == frozen_files
    assert load_frozen(V3) is not None  # both fingerprints still hold
    text = report.table_v3(m)
    assert "held-out families" in text and text.count("\n| ") == 3  # the header row and two arms
