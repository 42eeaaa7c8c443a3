"""Sampling completions from the small model and grading them with codemix's TRL reward function
(`trl_correctness_reward`: the sandbox, each distinct program once per problem), with the cost
counted: generated tokens and the sandbox's CPU seconds (its worker processes and the children
they forked, read from the OS)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psutil
import torch

from filters.reward import trl_correctness_reward

__all__ = ["prompt_ids", "sample", "grade", "sandbox_cpu_s", "evaluate", "PhaseClock"]


def prompt_ids(tokenizer: Any, prompts: Sequence[Any]) -> list[list[int]]:
    """Token ids of conversational prompts, through the chat template with the generation prompt
    (what TRL generates from)."""
    out = []
    for p in prompts:
        text = tokenizer.apply_chat_template(list(p), add_generation_prompt=True, tokenize=False)
        out.append(tokenizer(text, add_special_tokens=False)["input_ids"])
    return out


@torch.no_grad()
def sample(
    model: Any,
    tokenizer: Any,
    ids: Sequence[list[int]],
    n: int,
    max_new_tokens: int = 64,
    temperature: float = 1.0,
    chunk: int = 64,
) -> tuple[list[str], list[list[int]]]:
    """`n` sampled completions per prompt (prompt-major: prompt i's completions at i*n .. i*n+n-1):
    their text and their token ids (up to and with the end of sequence)."""
    dev = next(model.parameters()).device
    texts: list[str] = []
    toks: list[list[int]] = []
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    per = max(1, chunk // n)
    for start in range(0, len(ids), per):
        part = ids[start : start + per]
        width = max(len(x) for x in part)
        inp = torch.full((len(part), width), pad, dtype=torch.long)
        mask = torch.zeros_like(inp)
        for r, x in enumerate(part):
            inp[r, width - len(x) :] = torch.tensor(x)
            mask[r, width - len(x) :] = 1
        out = model.generate(
            input_ids=inp.to(dev),
            attention_mask=mask.to(dev),
            do_sample=True,
            temperature=temperature,
            top_k=0,
            top_p=1.0,
            max_new_tokens=max_new_tokens,
            num_return_sequences=n,
            eos_token_id=eos,
            pad_token_id=pad,
        )
        for row in out[:, width:].tolist():
            cut = row.index(eos) + 1 if eos in row else len(row)
            row = [t for t in row[:cut] if t != pad]
            toks.append(row)  # with the end of sequence, which the loss must teach too
            texts.append(tokenizer.decode(row, skip_special_tokens=True))
    return texts, toks


def grade(ground_truth: Sequence[str], completions: Sequence[str]) -> np.ndarray:
    """Rewards in [0, 1] (NaN for a sandbox fault) from `trl_correctness_reward`, called as TRL
    calls it (conversational completions, the dataset's `ground_truth` column)."""
    msgs = [[{"role": "assistant", "content": c}] for c in completions]
    got = trl_correctness_reward(prompts=None, completions=msgs, ground_truth=list(ground_truth))
    return np.array([np.nan if r is None else float(r) for r in got])


def sandbox_cpu_s() -> float:
    """CPU seconds so far of this process's child processes (the sandbox pool and every program
    it ran), alive or reaped."""
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            continue
    return total


class PhaseClock:
    """CPU seconds per phase of a run (generation, grading, update, evaluation, ...): this
    process's (`time.process_time`, all its threads) plus the sandbox's (`sandbox_cpu_s`), and
    wall seconds. `with clock("grading"): ...` adds to that phase."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        c0, s0, w0 = time.process_time(), sandbox_cpu_s(), time.perf_counter()
        try:
            yield
        finally:
            cpu = time.process_time() - c0 + sandbox_cpu_s() - s0
            self.cpu[phase] = self.cpu.get(phase, 0.0) + cpu
            self.wall[phase] = self.wall.get(phase, 0.0) + time.perf_counter() - w0

    def record(self) -> dict[str, dict[str, float]]:
        return {
            "cpu_s": {k: round(v, 3) for k, v in self.cpu.items()},
            "wall_s": {k: round(v, 3) for k, v in self.wall.items()},
        }


def evaluate(
    model: Any,
    tokenizer: Any,
    rows: Any,
    n: int = 4,
    max_new_tokens: int = 64,
    seed: int = 0,
    target: Sequence[str] = (),
) -> dict[str, Any]:
    """Held-out pass@1 (mean over `n` samples at temperature 1) per source and overall: `pass1`
    the mean of the sources (B3), `pass1_micro` the mean over problems, and with `target` sources
    `pass1_target` the mean over the problems of those sources (B3 v2's metric); with each
    problem's pass rate."""
    torch.manual_seed(seed)
    ids = prompt_ids(tokenizer, rows["prompt"])
    texts, _ = sample(model, tokenizer, ids, n, max_new_tokens)
    gt = [g for g in rows["ground_truth"] for _ in range(n)]
    r = np.nan_to_num(grade(gt, texts), nan=0.0).reshape(len(ids), n)
    per_problem = r.mean(axis=1)
    sources = np.array(rows["source"])
    per_source = {str(s): float(per_problem[sources == s].mean()) for s in sorted(set(sources))}
    out = {
        "pass1": float(np.mean(list(per_source.values()))),
        "pass1_micro": float(per_problem.mean()),
        "per_source": per_source,
        "per_problem": per_problem.tolist(),
    }
    if target:
        out["pass1_target"] = float(per_problem[np.isin(sources, list(target))].mean())
    return out


def start_rates(
    model: Any, tokenizer: Any, rows: Any, n: int = 8, max_new_tokens: int = 64, seed: int = 0
) -> dict[str, Any]:
    """Per source of `rows`: the pass rate of `n` samples per problem, and the share of problems
    whose `n` samples all pass or all fail (a group of `n` with zero GRPO advantage)."""
    torch.manual_seed(seed)
    ids = prompt_ids(tokenizer, rows["prompt"])
    texts, _ = sample(model, tokenizer, ids, n, max_new_tokens)
    gt = [g for g in rows["ground_truth"] for _ in range(n)]
    r = np.nan_to_num(grade(gt, texts), nan=0.0).reshape(len(ids), n) >= 1.0
    sources = np.array(rows["source"])
    zero = r.all(axis=1) | ~r.any(axis=1)
    out: dict[str, Any] = {"samples": n, "problems": len(ids), "per_source": {}}
    for s in sorted(set(sources)):
        k = sources == s
        out["per_source"][str(s)] = {
            "problems": int(k.sum()),
            "pass_rate": round(float(r[k].mean()), 4),
            "zero_advantage": round(float(zero[k].mean()), 4),
        }
    out["pass_rate"] = round(float(r.mean()), 4)
    out["zero_advantage"] = round(float(zero.mean()), 4)
    return out
