"""B3 v2 (issue 41; B3, issue 29, with `--tasks v1`): the whole loop for real. A small code model
trained here, GRPO with the sandbox's reward on a curated build of Python function problems,
every source mixer and problem sampler.

Steps (each skipped when its output exists, so everything completes in parts):
1. inputs (`--prepare`; frozen in the repository, `frozen.py`): the task sources
   (`families_v2.py`) -> canonical JSONL -> `codemix build` -> `codemix export --format trl
   --split test=0.36`; a tokenizer and Llama pre-trained on the families' pre-training settings,
   the checkpoint whose per-source held-out pass rates lie in their bands; difficulty from
   `codemix rank` on three other checkpoints; each source's step-0 pass rate and zero-advantage
   share measured;
2. runs: each (arm, seed) a GRPO run from that checkpoint, its curve and per-step trace written to
   `results/<setting>/<arm>/seed<k>.json` (in the repository: small, resumable);
3. summary: `results/<setting>/summary-<part>.json` and a table (`report.py`), with the validity
   gates on the development seeds.

One command per part; each finished run is a file, so a part resumes where it stopped, and the
same command started twice runs two runs side by side (each claims its run first):

    OMP_NUM_THREADS=1 python benchmarks/code_rl/bench.py --quick                   # < 3 min, fresh clone
    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/code_rl/bench.py --part pilot    # learning rate
    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/code_rl/bench.py --part gates    # uniform, oracle
    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/code_rl/bench.py --part dev --arms dapo greso mopps
    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/code_rl/bench.py --part fresh --arms uniform dapo
    python benchmarks/code_rl/bench.py --device cuda --size base --part gates      # on a GPU
    OMP_NUM_THREADS=1 python benchmarks/code_rl/bench.py --tasks v1 --part fresh   # B3 as it ran

B3 v3 (issue 53; benchmarks/pages/b3v3.md) runs on an overlay of B3 v2's inputs (`frozen/v3-small`:
v2's build, policy and held-out split, the difficulty replaced by the prior from other models,
their rollouts file, and the held-out families of `families_v3.py`, evaluated beside the first
held-out set in every run); `--tasks v3 --prepare` freezes it, `--part gates` and `--part fresh3`
run its registration (the command on the page).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FROZEN = HERE / "frozen"  # the inputs every full-mode run starts from (`frozen.py`)
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402

from code_rl.build import HELD_OUT, build_data  # noqa: E402
from code_rl.difficulty import ensure_difficulty, ranking_checkpoints  # noqa: E402
from code_rl.families import V1, TaskSet  # noqa: E402
from code_rl.families_v2 import BANDS, TARGET_SOURCES, V2  # noqa: E402
from code_rl.families_v3 import HELD_OUT_FAMILIES  # noqa: E402
from code_rl.families_v3 import SPLIT as FAMILIES_SPLIT  # noqa: E402
from code_rl.frozen import freeze, freeze_overlay, load_frozen  # noqa: E402
from code_rl.grpo import (  # noqa: E402
    Arm,
    RunConfig,
    config_dict,
    offline_filter,
    ranking_pass_rates,
    run_lean,
    run_trl,
    with_prior,
)
from code_rl.model import load  # noqa: E402
from code_rl.pretrain import ensure_model  # noqa: E402
from code_rl.report import (  # noqa: E402
    choose_lr,
    gates,
    gates_v3,
    judge_stack_claim,
    judge_v3_claim,
    measure_v3,
    prior_spearman,
    summarize,
    summarize_v2,
    table,
    table_v2,
    table_v3,
)
from code_rl.rollout import sandbox_cpu_s, start_rates  # noqa: E402

LEARN = {"score": "learnability-low", "explore": 0.25}
ARMS = {
    "uniform": Arm("uniform"),
    "static": Arm("static", mixer="static-size"),
    "dump": Arm("dump", mixer="dump"),
    "acodm": Arm("acodm", mixer="acodm"),
    "acodm-learnability": Arm(
        "acodm-learnability", mixer="acodm", mixer_kw={"reward": "learnability"}
    ),
    "frontier": Arm("frontier", problems="frontier"),
    "frontier-scored": Arm("frontier-scored", problems="frontier", scorer=True, problem_kw=LEARN),
    # ablations of the frontier sampler (development seeds): no difficulty prior; a larger explore share
    "frontier-noprior": Arm(
        "frontier-noprior",
        problems="frontier",
        problem_kw={"difficulty_column": None, "std_column": None},
    ),
    "frontier-explore25": Arm(
        "frontier-explore25", problems="frontier", problem_kw={"explore": 0.25}
    ),
    "dapo": Arm("dapo", problems="dapo"),
    "greso": Arm("greso", problems="greso"),
    "mopps": Arm("mopps", problems="mopps"),
    "frontier-scored+acodm-learnability": Arm(
        "frontier-scored+acodm-learnability",
        problems="frontier",
        mixer="acodm",
        scorer=True,
        problem_kw=LEARN,
        mixer_kw={"reward": "learnability"},
    ),
    # B3 v2: the default sampling stack (issue 40), and the oracle of validity gate (b)
    "stack": Arm("stack", problems="frontier", default=True),
    "oracle": Arm(
        "oracle", problems="oracle", problem_kw={"band": (0.1, 0.9), "every": 25, "samples": 4}
    ),
    # B3 v3's baselines (issue 53): uniform over problems (every train problem equally likely:
    # sources weighted by size, uniform inside), DAPO with the usual offline pass-rate filter from
    # the ranking's rollouts (`--prior-rollouts`: drop what the ranking models always or never
    # pass, what `codemix rank --keep-pass-rate` drops), the default stack without its prior
    "uniform-problems": Arm("uniform-problems", mixer="static-size"),
    # the oracle that bounds (issue 53; b3v3.md section 5, amendment 2): fresh probes each round
    # of the problems it may draw, 32 at a time (4 completions each, counted apart) until 8 are
    # live or 256 probed, the top 4 by p(1 - p) drawn
    "oracle-topb": Arm(
        "oracle-topb",
        problems="oracle-topb",
        problem_kw={"pool": 32, "samples": 4, "enough": 8, "most": 256},
    ),
    "dapo-filter": Arm("dapo-filter", problems="dapo", keep_pass_rate=(1e-9, 1 - 1e-9)),
    "stack-noprior": Arm(
        "stack-noprior",
        problems="frontier",
        default=True,
        problem_kw={"difficulty_column": None, "std_column": None},
    ),
}
QUALITY_ARMS = {"uniform", "frontier-scored"}


@dataclass(frozen=True)
class Version:
    """One benchmark: its task sources, inputs (model size, held-out share, pre-training, ranking),
    run settings and seed sets (`parts`: development seeds for every choice, fresh ones for
    headlines)."""

    tasks: TaskSet
    frozen: str  # folder under frozen/ of the inputs at `size` (another size: "<tasks>-<size>")
    held_out: float
    size: str
    pretrain: int
    every: int
    stop: int | None
    rank_models: int
    rank_samples: int
    bands: dict[str, tuple[float, float]] | None
    cfg: RunConfig
    parts: dict[str, list[int]]
    arms: list[str]  # the default arms of a part


#: B3 v2's learning rate, chosen by the pilot registered on benchmarks/pages/b3v2.md before it ran
#: (None until then: the parts that need it refuse to run)
LR_V2: float | None = 1e-4
PILOT_LRS = (5e-5, 1e-4, 2e-4)
#: loop attempt 2 (b3v2.md, section 5): prompts a round and rounds at most, with --fill
FILL_PROMPTS, FILL_ROUNDS = 4, 32
#: loop attempt 3 (section 7): with --rollouts, steps are only a cap
BUDGET_STEP_CAP = 4000
DEV, FRESH = [0, 1], [100, 101, 102, 103, 104]
#: fresh seeds of the second registration (b3v2.md, section 17: the 16,384-rollout budget); no
#: choice is made on them
FRESH2 = [105, 106, 107, 108, 109]
#: B3 v3's fresh seeds (b3v3.md, section 5), none used for any choice, none dropped
FRESH3 = list(range(200, 210))
V3_ARMS = [
    "uniform",
    "uniform-problems",
    "dapo-filter",
    "stack",
    "stack-noprior",
    "mopps",
    "greso",
    "dump",
    "acodm",
    "oracle-topb",
]
V2_CFG = RunConfig(
    steps=200,
    prompts=16,
    group=8,
    lr=LR_V2 or 0.0,
    warmup=10,
    schedule="constant",
    skip_empty=True,
    eval_every=25,
    eval_samples=4,
    final_samples=16,
    target=tuple(TARGET_SOURCES),
)
VERSIONS = {
    "v1": Version(
        V1,
        "small",
        held_out=0.2,
        size="small",
        pretrain=1200,
        every=150,
        stop=900,  # of a 1200-step cosine schedule: where the session's run was stopped
        rank_models=3,
        rank_samples=4,
        bands=None,
        # 60 steps: at 30 (attempt 1, results/full-small-30x8x8-*) no arm moved beyond noise
        cfg=RunConfig(steps=60, prompts=8, group=8, eval_samples=8, quality_at=(0, 30, 60)),
        parts={"dev": DEV, "fresh": FRESH},
        arms=[a for a in ARMS if a not in ("greso", "stack", "oracle")],
    ),
    "v2": Version(
        V2,
        "v2-small",
        held_out=0.36,
        size="small",
        pretrain=1500,
        every=150,
        stop=None,
        rank_models=3,
        rank_samples=4,
        bands=BANDS,
        cfg=V2_CFG,
        parts={"pilot": DEV, "gates": DEV, "dev": DEV, "fresh": FRESH, "fresh2": FRESH2},
        arms=["uniform", "dapo", "greso", "mopps", "dump", "acodm", "stack"],
    ),
}
# B3 v3: v2's tasks, build, policy and loop on an overlay of v2's frozen inputs (b3v3.md)
VERSIONS["v3"] = dataclasses.replace(
    VERSIONS["v2"], frozen="v3-small", parts={"gates": DEV, "dev": DEV, "fresh3": FRESH3}, arms=V3_ARMS
)
#: the small end-to-end modes: B3 v2's first problems of each source through the real build, the
#: frozen v2 model (or, with --size, one pre-trained here), a few steps of a few arms
SMALL = {
    "quick": {
        "limit": 6,
        "rank_samples": 2,
        "pretrain": 120,
        "arms": ["uniform", "frontier-scored", "mopps"],
        "cfg": dataclasses.replace(
            V2_CFG,
            lr=1e-4,
            steps=4,
            prompts=4,
            group=4,
            warmup=1,
            eval_every=2,
            eval_samples=2,
            final_samples=2,
            max_new_tokens=48,
            quality_at=(0, 4),
            quality_problems=8,
            quality_samples=4,
        ),
    },
    "smoke": {
        "limit": 3,
        "rank_samples": 1,
        "pretrain": 10,
        "arms": ["uniform", "frontier-scored", "dapo"],
        "cfg": dataclasses.replace(
            V2_CFG,
            lr=1e-4,
            steps=2,
            prompts=2,
            group=2,
            warmup=1,
            eval_every=2,
            eval_samples=1,
            final_samples=1,
            max_new_tokens=24,
            quality_at=(2,),
            quality_problems=4,
            quality_samples=2,
        ),
    },
}


def run_one(
    data: dict[str, Any],
    ckpt: str,
    arm: Arm,
    seed: int,
    cfg: RunConfig,
    loop: str,
    out: Path,
    inputs: str | None = None,
    rates: dict[str, float] | None = None,
) -> dict[str, Any]:
    """One run of `arm` on `seed`, written to `out`; `rates`: the ranking's pass rate of each
    problem (`ranking_pass_rates`), for an arm with the offline filter."""
    from datasets import load_from_disk

    ds = load_from_disk(data["trl"])
    train, held = ds["train"], ds[HELD_OUT]
    files = data.get("files", {})  # B3 v3's overlay: the prior from other models, the families
    if "difficulty.json" in files:
        train = with_prior(train, json.loads(Path(files["difficulty.json"]).read_text()))
    families = load_from_disk(files["families"])[FAMILIES_SPLIT] if "families" in files else None
    if arm.keep_pass_rate is not None:
        if rates is None:
            raise SystemExit(f"arm {arm.name}: the offline filter needs --prior-rollouts FILE")
        train = offline_filter(train, rates, arm.keep_pass_rate)
    model, tok = load(Path(ckpt), cfg.device)
    if arm.name not in QUALITY_ARMS:  # the scorer's quality is measured on the policies of these
        cfg = dataclasses.replace(cfg, quality_at=())
    t0, c0 = time.perf_counter(), time.process_time()
    if loop == "trl":  # TRL's output folder (its logs) is scratch: the run file is the result
        with tempfile.TemporaryDirectory(prefix="b3-trl-") as tmp:
            res = run_trl(model, tok, train, held, arm, cfg, seed, out_dir=tmp, families=families)
    else:
        res = run_lean(model, tok, train, held, arm, cfg, seed, families=families)
    res.update(
        arm=arm.name,
        seed=seed,
        train_problems=len(train),
        config=config_dict(cfg),
        wall_s=time.perf_counter() - t0,
        process_cpu_s=time.process_time() - c0,
        load=os.getloadavg(),
        inputs=inputs,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(res, indent=None, separators=(",", ":")))
    tmp.rename(out)
    return res


@contextmanager
def claim(out: Path) -> Iterator[bool]:
    """Whether this process may make the run `out` (no other live process holds its claim): the
    same part started twice runs two runs side by side."""
    lock = out.with_suffix(".running")
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            pid = int(lock.read_text() or 0)
            os.kill(pid, 0)
            yield False  # another process makes it
            return
        except (ValueError, ProcessLookupError):  # a claim left by a process that died
            lock.unlink(missing_ok=True)
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except PermissionError:
            yield False
            return
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    try:
        yield True
    finally:
        lock.unlink(missing_ok=True)


def frozen_dir(v: Version, size: str) -> Path:
    """Where the inputs of `v` with a model of `size` are frozen."""
    return FROZEN / (v.frozen if size == v.size else f"{v.tasks.name}-{size}")


def prepare(a: argparse.Namespace, v: Version, size: str) -> dict[str, Any]:
    """Build, pre-train (a model of `size`), rank and measure the inputs of `v` in the cache,
    then freeze them."""
    from datasets import load_from_disk

    cache = a.cache / (v.tasks.name if size == v.size else f"{v.tasks.name}-{size}")
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    data = build_data(cache, workers=a.workers, held_out=v.held_out, tasks=v.tasks)
    times["data_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    held = load_from_disk(data["trl"])[HELD_OUT]
    model_rec = ensure_model(
        cache,
        held,
        size=size,
        steps=v.pretrain,
        every=v.every,
        device=a.device,
        stop=v.stop,
        tasks=v.tasks,
        bands=v.bands,
    )
    times["model_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    rank = ensure_difficulty(
        cache, data, ranking_checkpoints(model_rec, v.rank_models), samples=v.rank_samples
    )
    times["difficulty_s"] = time.perf_counter() - t0
    print(f"difficulty: codemix rank on {rank['models']} ({rank['pass_rate']})", flush=True)
    extra: dict[str, Any] = {"tasks": v.tasks.name, "times": times}
    if v.bands is not None:  # B3 v2: what every arm starts from, measured
        t0 = time.perf_counter()
        ds = load_from_disk(data["trl"])
        model, tok = load(Path(model_rec["checkpoint"]), a.device)
        extra["start"] = {
            "train": start_rates(model, tok, ds["train"], n=8, seed=1),
            "held_out": start_rates(model, tok, ds[HELD_OUT], n=16, seed=2),
        }
        times["start_s"] = time.perf_counter() - t0
    return freeze(frozen_dir(v, size), data, model_rec, rank, extra)


#: the prior from other models B3 v3 freezes (b3v3.md, section 6c: `other_prior.py`'s rollouts)
V3_PRIOR_ROLLOUTS = HERE / "results" / "v3-prior" / "rollouts.jsonl"


def prepare_v3(a: argparse.Namespace) -> dict[str, Any]:
    """Freeze B3 v3's inputs, an overlay of B3 v2's (`frozen/v2-small`: its build, policy and
    held-out split, untouched): the held-out families (`families_v3.py`) through the real
    `codemix build`, exported whole and renamed to their split; the frozen policy's start on them
    (16 samples a problem, seed 2: as the first set's start was measured); the prior from other
    models (`--prior-rollouts`, by default `results/v3-prior/rollouts.jsonl`) fitted by codemix's
    1PL fit into a difficulty, its std and 5 quantile buckets for every problem of v2's export,
    and the rollouts file itself (the offline filter's input)."""
    from datasets import DatasetDict, concatenate_datasets, load_from_disk

    from code_rl.other_prior import fit_difficulty_std
    from filters.stages.difficulty.stats import quantile_buckets

    base_dir = frozen_dir(VERSIONS["v2"], "small")
    base = load_frozen(base_dir)
    if base is None:
        raise SystemExit(f"no frozen B3 v2 inputs in {base_dir}")
    cache = a.cache / "v3"
    cache.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    fam = build_data(cache / "families-build", workers=a.workers, held_out=None,
                     tasks=HELD_OUT_FAMILIES)  # fmt: skip
    rows = load_from_disk(fam["trl"])["train"]
    fam_dir = cache / "families"
    if not (fam_dir / "dataset_dict.json").exists():
        DatasetDict({FAMILIES_SPLIT: rows}).save_to_disk(str(fam_dir))
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    model, tok = load(Path(base["model"]["checkpoint"]), a.device)
    start = start_rates(model, tok, rows, n=16, seed=2)
    start_s = time.perf_counter() - t0
    rollouts = a.prior_rollouts or V3_PRIOR_ROLLOUTS
    lines = [json.loads(x) for x in rollouts.read_text().splitlines() if x.strip()]
    v2 = load_from_disk(base["data"]["trl"])
    ids = list(concatenate_datasets([v2["train"], v2[HELD_OUT]])["problem_id"])
    fit = fit_difficulty_std(lines, ids)
    buckets = quantile_buckets([(fit[p][0], p) for p in ids], 5)
    prior = {p: [fit[p][0], fit[p][1], int(b)] for p, b in zip(ids, buckets, strict=True)}
    (cache / "difficulty.json").write_text(json.dumps(prior, indent=0, sort_keys=True))
    record = {
        "tasks": "v3",
        "families": {
            "counts": fam["manifest"]["counts"],
            "times": {**fam["times"], "build_and_export_s": build_s, "start_s": start_s},
            "families": [f.name for f in HELD_OUT_FAMILIES.families],
            "split": FAMILIES_SPLIT,
        },
        "start": {"families": start},
        "difficulty": {
            "from": "models of other lineages (other_prior.py; b3v3.md section 6c)",
            "rollouts": str(rollouts.resolve().relative_to(HERE.parents[1])),
            "models": sorted({x["model"] for x in lines}),
            "fit": "filters.stages.difficulty.irt.fit_irt, 1PL, prior mean 0 std 2; 5 buckets",
        },
    }
    files = {"families": fam_dir, "difficulty.json": cache / "difficulty.json",
             "rollouts.jsonl": rollouts}  # fmt: skip
    return freeze_overlay(frozen_dir(VERSIONS["v3"], "small"), base_dir, files, record)


def registered_start(record: dict[str, Any], target: tuple[str, ...]) -> float:
    """The start of the target metric: micro pass@1 of the held-out problems of the target
    sources, 16 samples each, measured when the inputs were frozen."""
    per = record["start"]["held_out"]["per_source"]
    n = sum(per[s]["problems"] for s in target)
    return sum(per[s]["pass_rate"] * per[s]["problems"] for s in target) / n


def small_inputs(a: argparse.Namespace, mode: str, frozen: dict[str, Any] | None) -> tuple:
    """The quick and smoke modes' inputs: B3 v2's first problems of each source through the real
    build, the frozen v2 model (or one of `--size` pre-trained here), ranked by that model."""
    from datasets import load_from_disk

    m = SMALL[mode]
    cache = a.cache / mode
    v2 = VERSIONS["v2"]
    data = build_data(cache, workers=a.workers, held_out=v2.held_out, limit=m["limit"], tasks=V2)
    if a.size is None and frozen is not None:
        model_rec = frozen["model"]
    else:
        held = load_from_disk(data["trl"])[HELD_OUT]
        model_rec = ensure_model(
            cache,
            held,
            size=a.size or "tiny",
            steps=m["pretrain"],
            every=m["pretrain"],
            device=a.device,
            tasks=V2,
            bands=BANDS,
        )
    if m["rank_samples"]:  # the model the arms start from ranks here: these modes check the path
        ensure_difficulty(cache, data, [Path(model_rec["checkpoint"])], samples=m["rank_samples"])
    return data, model_rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="a small end-to-end run (under 3 minutes)")
    ap.add_argument("--smoke", action="store_true", help="the smallest end-to-end run (the test)")
    ap.add_argument("--tasks", choices=list(VERSIONS), default="v2")
    ap.add_argument(
        "--part",
        default="dev",
        help="seed set and arms: pilot, gates, dev, fresh, fresh2 (v2); gates, dev, fresh3 (v3)",
    )
    ap.add_argument("--seeds", type=int, nargs="*", help="explicit seeds (instead of --part's)")
    ap.add_argument("--arms", nargs="*", default=None, help=f"arms: {', '.join(ARMS)}")
    ap.add_argument(
        "--loop",
        choices=["lean", "trl", "both"],
        default="lean",
        help="both: each arm in both loops (their agreement)",
    )
    ap.add_argument("--lr", type=float, default=None, help="learning rate (default: the chosen)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--size", default=None, help="model size: tiny, small, base, large")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--prompts", type=int, default=None)
    ap.add_argument(
        "--rollouts",
        type=int,
        default=None,
        help="loop attempt 3: each run ends at this many generated rollouts (steps then a cap of "
        f"{BUDGET_STEP_CAP}), evaluated at every eighth of it",
    )
    ap.add_argument(
        "--fill",
        type=int,
        default=None,
        help="loop attempt 2: each step trains on this many informative groups, drawn --prompts "
        f"(default {FILL_PROMPTS} with --fill) at a time, at most {FILL_ROUNDS} rounds",
    )
    ap.add_argument(
        "--prior-rollouts",
        type=Path,
        default=None,
        help="the ranking's rollouts file (codemix rank --rollouts): the offline filter's pass rates",
    )
    ap.add_argument("--cache", type=Path, default=HERE / "cache")
    ap.add_argument("--results", type=Path, default=None, help="default results/ (--quick, --smoke: "
                    "../results/quick/code_rl/, ignored by git)")  # fmt: skip
    ap.add_argument("--workers", type=int, default=2, help="sandbox workers for the build")
    ap.add_argument(
        "--prepare",
        "--refreeze",
        dest="prepare",
        action="store_true",
        help="build, pre-train, rank and measure the inputs in the cache and freeze them",
    )
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    t_start, cpu_start = time.perf_counter(), cpu_seconds()
    mode = "smoke" if a.smoke else "quick" if a.quick else "full"
    if a.results is None:
        a.results = (
            HERE / "results" if mode == "full" else HERE.parent / "results" / "quick" / "code_rl"
        )
    v = VERSIONS[a.tasks]
    size = a.size or v.size
    if a.tasks == "v3" and size != v.size and mode == "full":
        raise SystemExit("--tasks v3 is an overlay of B3 v2's small inputs: no other --size")
    if a.fill and a.loop != "lean" and set(a.arms or ()) != {"dapo"}:  # before any input is made
        raise SystemExit(
            "--fill in the TRL loop is the trainer's refill of DAPO's sampler: --arms dapo "
            "(the lean loop's uniform arm)"
        )
    where = frozen_dir(VERSIONS["v2"], "small") if mode != "full" else frozen_dir(v, size)
    inputs = None if a.prepare else load_frozen(where)
    fp = None
    if mode != "full":
        data, model_rec = small_inputs(a, mode, inputs)
        cfg, size, default_arms = SMALL[mode]["cfg"], model_rec["size"], SMALL[mode]["arms"]
        parts: dict[str, list[int]] = {"dev": [0]}
    else:
        if a.prepare and a.tasks == "v3":  # an overlay of v2's inputs: frozen, nothing run
            inputs = prepare_v3(a)
            print(f"inputs: frozen {inputs['fingerprint']} ({where})", flush=True)
            return 0
        if a.prepare:
            inputs = prepare(a, v, size)
        if inputs is None:
            raise SystemExit(f"no frozen inputs in {where}: run with --prepare (and this --size)")
        print(f"inputs: frozen {inputs['fingerprint']} ({where})", flush=True)
        data, model_rec, fp = inputs["data"], inputs["model"], inputs["fingerprint"]
        cfg, size, default_arms, parts = v.cfg, model_rec["size"], v.arms, v.parts
    print(
        f"model: {model_rec['model']['parameters']} parameters, step {model_rec['chosen_step']}, "
        f"held-out {model_rec['chosen']['per_source']}",
        flush=True,
    )
    if a.part not in parts:
        raise SystemExit(f"--part must be one of {', '.join(parts)}")
    seeds = a.seeds if a.seeds else parts[a.part]
    arms = a.arms or (
        ["uniform"]
        if a.part == "pilot"
        else ["uniform", "oracle-topb" if a.tasks == "v3" else "oracle"]
        if a.part == "gates"
        else default_arms
    )
    over = {k: n for k, n in (("steps", a.steps), ("prompts", a.prompts)) if n is not None}
    if a.fill:  # page b3v2.md, section 5: rounds of 4 prompts until 4 informative groups
        over = {"prompts": FILL_PROMPTS, "refill_rounds": FILL_ROUNDS, **over, "fill": a.fill}
    if a.rollouts:  # page b3v2.md, section 7: the same rollouts for every arm
        over = {"steps": BUDGET_STEP_CAP, **over, "rollouts": a.rollouts}
    cfg = dataclasses.replace(cfg, **over, device=a.device)
    if a.part == "pilot":
        lrs = [a.lr] if a.lr else list(PILOT_LRS)
    elif mode == "full" and a.tasks in ("v2", "v3"):
        if not (a.lr or LR_V2):
            raise SystemExit("no learning rate chosen yet: run --part pilot (or give --lr)")
        lrs = [a.lr or LR_V2]
    else:
        lrs = [a.lr or cfg.lr]
    rates = ranking_pass_rates(a.prior_rollouts) if a.prior_rollouts else None
    pilot: dict[float, dict[str, Any]] = {}
    for lr in lrs:
        cfg_lr = dataclasses.replace(cfg, lr=lr)
        for loop in ["lean", "trl"] if a.loop == "both" else [a.loop]:
            fill = f"-fill{cfg.fill}" if cfg.fill else ""
            length = f"r{cfg.rollouts}" if cfg.rollouts else f"{cfg.steps}"
            setting = f"{mode}-{size}-{length}x{cfg.prompts}x{cfg.group}{fill}-{loop}"
            if a.tasks in ("v2", "v3"):
                setting = f"{a.tasks}-{setting}-lr{lr:g}" if mode == "full" else setting
            root = a.results / setting
            for seed in seeds:  # every arm on a seed before the next: a part ends with pairs
                for name in arms:
                    arm = ARMS[name]
                    if loop == "trl" and arm.problems.startswith("oracle"):  # probes: lean loop
                        if seed == seeds[0]:
                            print(
                                f"{setting} {name}: skipped (the oracle's probes; use --loop lean)"
                            )
                        continue
                    out = root / name / f"seed{seed}.json"
                    if out.exists():
                        continue
                    with claim(out) as mine:
                        if not mine or out.exists():
                            continue
                        r = run_one(
                            data, model_rec["checkpoint"], arm, seed, cfg_lr, loop, out, fp, rates
                        )
                    last = r["curve"][-1]
                    metric = last.get("pass1_target", last["pass1"])
                    print(
                        f"{setting} {name} seed {seed}: pass@1 {metric:.3f}, "
                        f"rollouts {last['rollouts']}, {r['wall_s']:.0f} s",
                        flush=True,
                    )
            pilot[lr] = report(root, a, mode, v, inputs, model_rec, data, fp, seeds, parts)
    if a.part == "pilot" and len(pilot) == len(PILOT_LRS):
        print("pilot: " + json.dumps(choose_lr(pilot, set(seeds)), default=str))
    if mode != "full":  # what the small modes cost, in CPU seconds (issue 53: not wall, on a load)
        spent = {k: round(v - cpu_start.get(k, 0.0), 2) for k, v in cpu_seconds().items()}
        spent["total"] = round(sum(spent.values()), 2)
        rec = {"mode": mode, "cpu_s": spent, "wall_s": round(time.perf_counter() - t_start, 2),
               "load": os.getloadavg(), "threads": torch.get_num_threads()}  # fmt: skip
        a.results.mkdir(parents=True, exist_ok=True)
        (a.results / f"{mode}-cost.json").write_text(json.dumps(rec, indent=1))
        print(
            f"{mode}: {spent['total']:.0f} CPU-s (this process {spent['process']:.0f}, its "
            f"subprocesses {spent['children']:.0f}, the sandbox {spent['sandbox']:.0f}), "
            f"{rec['wall_s']:.0f} s wall at load {rec['load'][0]:.1f}",
            flush=True,
        )
    return 0


def cpu_seconds() -> dict[str, float]:
    """CPU seconds so far: this process's, its finished subprocesses' (the `codemix` build,
    export and rank, reaped sandbox workers), and its live children's (the sandbox pool)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "process": own.ru_utime + own.ru_stime,
        "children": kids.ru_utime + kids.ru_stime,
        "sandbox": sandbox_cpu_s(),
    }


def report(
    root: Path,
    a: argparse.Namespace,
    mode: str,
    v: Version,
    inputs: dict[str, Any] | None,
    model_rec: dict[str, Any],
    data: dict[str, Any],
    fp: str | None,
    seeds: list[int],
    parts: dict[str, list[int]],
) -> dict[str, Any]:
    """Write the part's summary beside its runs, print its table (and the gates); return it."""
    part = next((n for n, s in parts.items() if set(seeds) <= set(s)), None)
    name = f"summary-{part}" if part else "summary-seeds-" + "-".join(map(str, sorted(seeds)))
    if a.tasks == "v1" and mode == "full":
        summary = summarize(root, model_rec, data, {}, inputs=fp, seeds=set(parts.get(part, seeds)))
        name = "summary" if part == "dev" else name
        text = table(summary)
    else:
        record = inputs["record"] if inputs and "start" in inputs.get("record", {}) else None
        cfg = SMALL[mode]["cfg"] if mode != "full" else v.cfg
        start = registered_start(record, cfg.target) if record else 0.0
        pool = set(parts.get(part, seeds)) if part else set(seeds)
        summary = summarize_v2(root, start + 0.05, start, inputs=fp, seeds=pool)
        if part in ("pilot", "gates", "dev") and mode == "full":
            summary["gates"] = (gates_v3 if a.tasks == "v3" else gates)(summary, root, fp, set(DEV))
        if part in ("fresh", "fresh2") and mode == "full":  # each registration on its own seeds
            summary["claim"] = judge_stack_claim(summary, set(parts[part]))
        text = table_v2(summary)
        if a.tasks == "v3" and mode == "full":  # the registered measure (b3v3.md, section 5)
            fam = record["start"].get("families") if record else None
            measure = measure_v3(root, start, fp, pool, families_start=fam)
            summary["measure"] = measure
            if part == "fresh3" and "arms" in measure:
                summary["claim"] = judge_v3_claim(measure, complete=set(parts[part]))
            text += "\n\n" + table_v3(measure, prior_spearman())
        for key in ("gates", "claim"):
            if key in summary:
                text += f"\n{key}: " + json.dumps(summary[key], default=str)
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{name}.json").write_text(json.dumps(summary, indent=1, default=str))
    print(root.name)
    print(text)
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
