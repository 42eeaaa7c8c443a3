"""AC-ODM in proxy mode (`mixer.ProxyACODM`): learn the mixing policy over proxy runs, then deploy it.

Phase 1 trains one `ProxyACODM` over `--proxies` runs of B2 (`--bench rl`) or B1 (`--bench lm`) on
proxy seeds (1000 + i: other task pools or data order, model initialisations and samples than the
evaluation's), `--parallel` runs at a time from the same policy, each exploring with its own
noise; after every round the policy learns from the runs' outcomes (the drop of a held-out
objective on a development set apart from the evaluation set: minus the expected pass rate in
B2, the mean loss over 8 development windows per domain in B1). `--paired` gives the runs of a
round the same seed (common random numbers) and fits differences within the round.
`--proxy-set key=value` makes the proxy runs differ from the target's (a smaller model, as in the
AC-ODM paper). Phase 2 deploys the learnt policy (greedy, no held-out feedback) on the
evaluation seeds next to uniform, static and ODM, and reports steps to uniform's final metric
and total compute to it, every proxy run the policy learnt from included.

    .venv/bin/python benchmarks/mixing/mix_proxy.py --proxies 120 --seeds 10 --cache /tmp/mb/rl_base
    .venv/bin/python benchmarks/mixing/mix_proxy.py --bench lm --proxies 60 --paired --seeds 5 \\
        --proxy-set d=64 layers=2 heads=2 --cache /tmp/mb/lm_base
    .venv/bin/python benchmarks/mixing/mix_proxy.py --quick        # smoke check, well under a minute
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import results_dir, stamp  # noqa: E402
from mixbench.common import MixerSpec, _init_worker, machine, run_jobs  # noqa: E402
from mixbench.lm import LMConfig, load_corpus, run_lm  # noqa: E402
from mixbench.report import (  # noqa: E402
    per_source_table,
    plot_curves,
    summarize,
    table,
    write_json,
)
from mixbench.rl import RLConfig, run_rl  # noqa: E402
from mixbench.tasks import CLEAN, SOURCES  # noqa: E402

from mixer import ProxyACODM  # noqa: E402
from mixer.policies.base import from_state  # noqa: E402

PROXY_SEED0 = 1000


class Bench:
    """What differs between B1 and B2 here."""

    def __init__(self, name: str, quick: bool) -> None:
        self.name = name
        if name == "rl":
            self.cfg, self.run, self.names = RLConfig.make(quick), run_rl, list(SOURCES)
            self.metric, self.per, self.higher = "pass_rate", "pass_rate_source", True
            self.odm = MixerSpec("odm", "odm", signal="adv_abs")
            self.focus, self.per_names = ["noisy", "repeated"], list(CLEAN)
        else:
            self.cfg, self.run = LMConfig.make(quick), run_lm
            self.names = load_corpus(
                self.cfg["cap_bytes"], self.cfg["ctx"], self.cfg["val_windows"]
            )[0]
            self.metric, self.per, self.higher = "val_loss", "val_loss_domain", False
            self.odm = MixerSpec("odm", "odm", signal="loss")
            self.focus, self.per_names = None, list(self.names)


def _train_one(bench: str, kw: dict, state: dict, seed: int, noise_seed: int, cfg: dict) -> dict:
    run = run_rl if bench == "rl" else run_lm
    spec = MixerSpec("proxy-train", "acodm-proxy", state=state, noise_seed=noise_seed, **kw)
    res = run(spec, seed, cfg)
    metric = "pass_rate" if bench == "rl" else "val_loss"
    return {
        "examples": res["examples"],
        "final": res[metric][-1],
        "weights": np.mean(res["weights"], axis=0).tolist(),
        "flops": res["flops_total"]
        + res.get("flops_pretrain", 0.0),  # a proxy run pays its warm-up
    }


def _deployed_copy(mixer: ProxyACODM, kw: dict) -> dict:
    twin = ProxyACODM(mixer.n_sources, names=mixer.names, horizon=mixer.horizon, **kw)
    twin.load_state_dict(mixer.state_dict())
    twin.deploy()
    return twin.state_dict()


def train_proxy(
    bench: Bench,
    kw: dict,
    cfg: dict,
    proxies: int,
    parallel: int,
    seed0: int = PROXY_SEED0,
    paired: bool = False,
    snapshots: tuple[int, ...] = (),
    log=print,
) -> tuple[dict[int, dict], list]:
    """A ProxyACODM trained over `proxies` runs, `parallel` at a time (sharing one seed per round
    when `paired`): its deployed state after `proxies` runs and after each count in `snapshots`;
    and each run's outcome."""
    mixer = ProxyACODM(len(bench.names), seed=0, names=bench.names, horizon=cfg["steps"], **kw)
    trace, states = [], {}
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=parallel, initializer=_init_worker) as ex:
        for r0 in range(0, proxies, parallel):
            if r0 in snapshots:
                states[r0] = _deployed_copy(mixer, kw)
            state = mixer.state_dict()
            ids = range(r0, min(r0 + parallel, proxies))
            seeds = [seed0 + (r0 // parallel if paired else i) for i in ids]
            jobs = [(bench.name, kw, state, s, i, cfg) for s, i in zip(seeds, ids, strict=True)]
            outs = list(ex.map(_train_one, *zip(*jobs, strict=True)))
            groups = [r0 // parallel] * len(outs) if paired else None
            mixer.fit_runs([from_state(o["examples"]) for o in outs], groups=groups)
            for s, o in zip(seeds, outs, strict=True):
                trace.append(
                    {"seed": s, "final": o["final"], "weights": o["weights"], "flops": o["flops"]}
                )
            greedy = mixer.actor_weights()  # at the state a run starts from
            log(
                f"[{len(trace)}/{proxies}] proxy finals {[round(o['final'], 3) for o in outs]} "
                f"greedy start weights {np.round(greedy, 2).tolist()} ({time.perf_counter() - t0:.0f}s)"
            )
    states[proxies] = _deployed_copy(mixer, kw)
    return states, trace


def _setting(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    try:
        return key, ast.literal_eval(value)
    except (SyntaxError, ValueError) as err:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected key=value with a Python literal"
        ) from err


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", choices=["rl", "lm"], default="rl")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--proxies", type=int, default=None, help="proxy runs (default 120; 4 quick)")
    ap.add_argument("--parallel", type=int, default=2, help="proxy runs per round")
    ap.add_argument("--paired", action="store_true", help="one seed per round of proxy runs")
    ap.add_argument(
        "--seeds", type=int, default=None, help="evaluation seeds (default 10; 2 quick)"
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--segments", type=int, default=4)
    ap.add_argument("--explore", type=float, default=1.0)
    ap.add_argument("--explore-random", type=float, default=0.25)
    ap.add_argument("--proxy-seed0", type=int, default=PROXY_SEED0, help="first proxy seed")
    ap.add_argument(
        "--proxy-set",
        type=_setting,
        nargs="*",
        default=[],
        help="proxy run settings that differ from the target's, e.g. hidden=64 (B2) or d=64 (B1)",
    )
    ap.add_argument("--proxy-hidden", type=int, default=None, help="same as --proxy-set hidden=N")
    ap.add_argument(
        "--snapshots", type=int, nargs="*", default=[], help="also deploy after this many runs"
    )
    ap.add_argument("--name", default=None)
    ap.add_argument("--cache", type=Path, default=None, help="reuse finished evaluation runs")
    ap.add_argument("--out-dir", type=Path, default=None, help="results/ (--quick: results/quick/)")
    args = ap.parse_args(argv)
    args.out_dir = results_dir(args.out_dir, args.quick)
    bench = Bench(args.bench, args.quick)
    cfg = bench.cfg
    proxies = args.proxies or (4 if args.quick else 120)
    seeds = args.seeds or (2 if args.quick else 10)
    prefix = "mix_proxy" if args.bench == "rl" else "mix_proxy_lm"
    name = args.name or (prefix + ("_quick" if args.quick else ""))
    kw = {
        "segments": args.segments,
        "explore": args.explore,
        "explore_random": args.explore_random,
    }
    started, mach, t0 = stamp(), machine(), time.perf_counter()
    pset = dict(args.proxy_set)
    if args.proxy_hidden:
        pset["hidden"] = args.proxy_hidden
    unknown = set(pset) - set(cfg)
    if unknown:
        sys.exit(f"unknown --proxy-set keys {sorted(unknown)}; settings are {sorted(cfg)}")
    pcfg = type(cfg)({**cfg, **pset})
    states, trace = train_proxy(
        bench,
        kw,
        pcfg,
        proxies,
        args.parallel,
        args.proxy_seed0,
        args.paired,
        tuple(args.snapshots),
    )
    t_train = time.perf_counter() - t0
    args.out_dir.mkdir(parents=True, exist_ok=True)
    arms = [MixerSpec("uniform", "uniform"), MixerSpec("static", "static"), bench.odm]
    tag = f"segments={args.segments}"
    tag += "".join(f", proxy {k}={v}" for k, v in pset.items())
    tag += ", paired" if args.paired else ""
    if args.proxy_seed0 != PROXY_SEED0:
        tag += f", proxy seeds {args.proxy_seed0}+"
    for k, st in sorted(states.items()):
        state_path = args.out_dir / f"{name}_state_{k}.json"
        state_path.write_text(json.dumps(st))
        sha = hashlib.sha256(state_path.read_bytes()).hexdigest()[:12]
        label = f"acodm-proxy[{k} runs, {tag}]"
        arms.append(
            MixerSpec(label, "acodm-proxy", policy_file=str(state_path), state_sha=sha, **kw)
        )
    jobs = [{"spec": a, "seed": s, "cfg": cfg} for s in range(seeds) for a in arms]
    runs = run_jobs(bench.run, jobs, args.workers, cache=args.cache)
    # a deployed policy is charged for every proxy run it learnt from (issue 17's accounting)
    spent = np.cumsum([t["flops"] for t in trace])
    for a, k in zip(arms[3:], sorted(states), strict=True):
        for r in runs:
            if r["label"] == a.label:
                r["proxy"] = {"flops": float(spent[k - 1]), "runs": k}
    summ = summarize(runs, bench.metric, bench.per, higher_better=bench.higher)
    print(table(summ, bench.metric, bench.names, focus=bench.focus))
    print(per_source_table(summ, bench.per_names))
    deployed = {
        a.label: np.mean(
            [r["weights"] for r in runs if r["label"] == a.label], axis=(0, 1)
        ).tolist()
        for a in arms[3:]
    }
    payload = {
        "benchmark": prefix,
        "command": "benchmarks/mixing/mix_proxy.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started,
        "machine": mach,
        "config": dict(cfg),
        "names": bench.names,
        "proxy": {
            "runs": proxies,
            "parallel": args.parallel,
            "paired": args.paired,
            "kw": kw,
            "train_s": t_train,
            "seed0": args.proxy_seed0,
            "settings": pset,
            "snapshots": args.snapshots,
        },
        "proxy_trace": trace,
        "deployed_weights_mean": deployed,
        "summary": {
            "target": summ["target"],
            "baseline": summ["baseline"],
            "steps": summ["steps"],
            "arms": {
                k: {kk: vv for kk, vv in v.items() if kk != "weights_mean_curve"}
                for k, v in summ["arms"].items()
            },
        },
    }
    out = write_json(args.out_dir / f"{name}.json", payload)
    plot_curves(
        summ,
        "held-out pass rate (clean sources)"
        if bench.name == "rl"
        else "validation loss (nats/byte)",
        args.out_dir / f"{name}_curves.png",
        f"{prefix}: ProxyACODM after {proxies} proxy runs vs. uniform, static, ODM",
    )
    for k, w in deployed.items():
        print(f"{k} mean weights:", np.round(w, 3).tolist())
    print(f"proxy training {t_train:.0f}s; wrote {out}")
    return payload


if __name__ == "__main__":
    main()
