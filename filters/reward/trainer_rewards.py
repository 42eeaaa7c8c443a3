"""Reward functions with the exact calling conventions of verl and TRL, over `codemix export` data.

verl (`codemix export --format verl`): each row has `data_source`, `reward_model.ground_truth` and
`extra_info`; verl calls `compute_score(data_source=, solution_str=, ground_truth=, extra_info=,
**reward_kwargs)` per sample (its reward loop from several threads, its reward workers from several
processes) or, with the "batch" reward manager, `compute_score_batch(data_sources=, solution_strs=,
ground_truths=, extra_infos=, **reward_kwargs)`. Both return dicts: "score" plus per-sample metrics
verl logs as reward_extra_info.

TRL (`codemix export --format trl`): GRPOTrainer calls each reward function with `prompts=`,
`completions=`, `completion_ids=` and every dataset column as a keyword list (`ground_truth`,
`problem_id`, `source`, ...), plus `trainer_state`, `log_extra`, `log_metric`. `trl_correctness_reward`
and `trl_speed_reward` return one float per completion, or None for a sandbox fault (TRL then marks
the completion unscorable instead of rewarding it 0). `make_trl_reward(...)` builds variants.

All of them share this process's sandbox pool (`filters.reward.pool`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from filters.reward.correctness import CorrectnessConfig, Grade, grade_many
from filters.reward.pool import shared_sandbox
from filters.reward.speed import SpeedConfig, SpeedResult, speed_many

__all__ = [
    "REWARD_OPTIONS",
    "compute_score",
    "compute_score_batch",
    "make_trl_reward",
    "trl_correctness_reward",
    "trl_speed_reward",
]

#: Keyword options the verl functions accept (verl passes them from `reward_kwargs` in its config).
REWARD_OPTIONS = (
    "speed_weight",
    "partial",
    "format_penalty",
    "max_tests",
    "on_system_error",
    "assert_policy",
    "speed_mode",
    "speed_measure",
    "speed_repeats",
    "speed_max_repeats",
    "speed_max_refs",
)


def _configs(
    options: dict[str, Any], default_on_se: str
) -> tuple[CorrectnessConfig, SpeedConfig, float]:
    c = CorrectnessConfig(
        max_tests=options.get("max_tests"),
        partial=bool(options.get("partial", False)),
        format_penalty=float(options.get("format_penalty", 0.0)),
        on_system_error=options.get("on_system_error", default_on_se),
        assert_policy=options.get("assert_policy", "convert"),
    )
    s = SpeedConfig(
        mode=options.get("speed_mode", "graded"),
        measure=options.get("speed_measure", "cpu"),
        repeats=int(options.get("speed_repeats", 7)),
        max_repeats=int(options.get("speed_max_repeats", 15)),
        max_refs=int(options.get("speed_max_refs", 3)),
    )
    return c, s, float(options.get("speed_weight", 0.0))


def _verl_dicts(
    grades: list[Grade], speeds: list[SpeedResult] | None, weight: float
) -> list[dict[str, Any]]:
    out = []
    for i, g in enumerate(grades):
        speed = speeds[i].reward if speeds is not None else 0.0
        info = g.info()
        if speed is None:  # the timing hit a sandbox fault (on_system_error="none"): an SE as well
            info["system_error"] = 1.0
            out.append({"score": 0.0, **info, "speed": 0.0})
            continue
        score = (
            g.score or 0.0
        ) + weight * speed  # a reported SE (score None) is flagged in system_error
        out.append({"score": float(score), **info, "speed": float(speed)})
    return out


def _verl_run(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    options: dict[str, Any],
) -> list[dict[str, Any]]:
    ccfg, scfg, weight = _configs(options, "raise")
    items = list(zip(ground_truths, solution_strs))
    sb = shared_sandbox()
    grades = grade_many(items, sandbox=sb, config=ccfg)
    speeds = None
    if weight and any(g.accepted for g in grades):
        ok = [i for i, g in enumerate(grades) if g.accepted]
        timed = speed_many([items[i] for i in ok], sandbox=sb, config=scfg, correctness=ccfg)
        speeds = [SpeedResult(0.0, False) for _ in grades]
        for i, r in zip(ok, timed):
            speeds[i] = r
    return _verl_dicts(grades, speeds, weight)


def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """verl's `compute_score`: correctness (+ speed_weight x speed) of one response.

    Options come as keyword arguments (`reward_kwargs` in verl's config): see REWARD_OPTIONS. Other
    keywords verl adds (e.g. `reward_router_address`) are ignored. A sandbox fault raises
    RewardSystemError unless `on_system_error="none"`, which scores 0.0 with `system_error=1.0`.
    """
    options = {k: v for k, v in kwargs.items() if k in REWARD_OPTIONS}
    return _verl_run([data_source], [solution_str], [ground_truth], options)[0]


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any] | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """verl's batch reward manager signature: all responses of a step at once, in parallel."""
    options = {k: v for k, v in kwargs.items() if k in REWARD_OPTIONS}
    return _verl_run(data_sources, solution_strs, ground_truths, options)


def make_trl_reward(
    kind: str = "correctness",
    *,
    name: str | None = None,
    correctness: CorrectnessConfig | None = None,
    speed: SpeedConfig | None = None,
    ground_truth_column: str = "ground_truth",
) -> Callable[..., list[float | None]]:
    """A TRL reward function: kind "correctness" or "speed" (0 unless correct; see `speed_reward`).

    The default correctness config reports sandbox faults as None (unscorable in TRL).
    """
    if kind not in ("correctness", "speed"):
        raise ValueError(f"kind must be 'correctness' or 'speed', got {kind!r}")
    ccfg = correctness or CorrectnessConfig(on_system_error="none")
    scfg = speed or SpeedConfig()

    def reward(
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Any = None,
        **columns: Any,
    ) -> list[float | None]:
        if completions is None:
            raise TypeError("a TRL reward function is called with completions=")
        if ground_truth_column not in columns:
            raise KeyError(
                f"the dataset has no {ground_truth_column!r} column; export it with "
                "`codemix export --format trl`"
            )
        items = list(zip(columns[ground_truth_column], completions))
        if kind == "correctness":
            return [g.score for g in grade_many(items, config=ccfg)]
        return [r.reward for r in speed_many(items, config=scfg, correctness=ccfg)]

    reward.__name__ = reward.__qualname__ = name or f"codemix_{kind}"
    return reward


#: TRL reward functions with the default settings (pass them in `reward_funcs=[...]`).
trl_correctness_reward = make_trl_reward("correctness", name="trl_correctness_reward")
trl_speed_reward = make_trl_reward("speed", name="trl_speed_reward")
