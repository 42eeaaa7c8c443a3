"""Training-time rewards: correctness as strict as the verifier, and a speed reward robust to noisy timing.

    from filters.reward import correctness_reward, speed_reward
    correctness_reward(problem, completion)      # 1.0 / 0.0 (options: partial, format_penalty, max_tests)
    speed_reward(problem, completion)            # 0 unless correct; graded or binary vs the references

Adapters for trainers: `compute_score` / `compute_score_batch` (verl), `trl_correctness_reward` /
`trl_speed_reward` / `make_trl_reward` (TRL). See docs/rewards.md.
"""

from filters.reward.correctness import (
    CorrectnessConfig,
    Grade,
    RewardSystemError,
    as_problem,
    correctness_reward,
    grade,
    grade_many,
    select_tests,
)
from filters.reward.counters import count_instructions, perf_works, pick_tool, valgrind_works
from filters.reward.extract import completion_text, extract_code, extract_program, looks_like_code
from filters.reward.pool import close_shared_sandbox, reward_workers, shared_sandbox
from filters.reward.speed import (
    Decision,
    SpeedConfig,
    SpeedResult,
    decide,
    measure_speed,
    speed_many,
    speed_reward,
    timing_tests,
)
from filters.reward.trainer_rewards import (
    REWARD_OPTIONS,
    compute_score,
    compute_score_batch,
    make_trl_reward,
    trl_correctness_reward,
    trl_speed_reward,
)

__all__ = [
    "REWARD_OPTIONS",
    "CorrectnessConfig",
    "Decision",
    "Grade",
    "RewardSystemError",
    "SpeedConfig",
    "SpeedResult",
    "as_problem",
    "close_shared_sandbox",
    "completion_text",
    "compute_score",
    "compute_score_batch",
    "correctness_reward",
    "count_instructions",
    "decide",
    "extract_code",
    "extract_program",
    "grade",
    "grade_many",
    "looks_like_code",
    "make_trl_reward",
    "measure_speed",
    "perf_works",
    "pick_tool",
    "reward_workers",
    "select_tests",
    "shared_sandbox",
    "speed_many",
    "speed_reward",
    "timing_tests",
    "trl_correctness_reward",
    "trl_speed_reward",
    "valgrind_works",
]
