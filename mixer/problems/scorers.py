"""Signals of the policy *now* for `FrontierSampler`'s scorer, at one forward pass per problem and no
rollout: the mean log-likelihood per token of a reference solution after the prompt, under a causal
language model (any model whose forward takes `input_ids` and `attention_mask` and returns an
object with `.logits`, as `transformers` models do; the tokenizer needs `tokenizer(text,
add_special_tokens=...)["input_ids"]` and a `pad_token_id` or `eos_token_id`).

The sampler fits how much the signal says about passing (`PassRateModel`'s calibration), so its
units do not matter; what matters is that it ranks problems as the policy's pass rates rank them
(`benchmarks/pages/frontier.md` measures how well it must).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch

from filters.tools.languages import programs_in

__all__ = [
    "Prompt",
    "ReferenceLikelihood",
    "chat_prompt_ids",
    "dataset_references",
    "reference_log_likelihood",
]


def _ids(tokenizer: Any, text: str, special: bool) -> list[int]:
    return list(tokenizer(text, add_special_tokens=special)["input_ids"])


#: A prompt as the scorers take it: its text (tokenized here), or its token ids.
Prompt = str | Sequence[int]


def _prompt_ids(tokenizer: Any, prompt: Prompt) -> list[int]:
    """A text prompt tokenized (with the tokenizer's special tokens), or token ids as given."""
    return _ids(tokenizer, prompt, True) if isinstance(prompt, str) else [int(t) for t in prompt]


def chat_prompt_ids(tokenizer: Any, messages: Sequence[Mapping[str, Any]], **kw: Any) -> list[int]:
    """The token ids a chat trainer generates from: `messages` through the tokenizer's chat
    template with the generation prompt (TRL's and verl's rendering of a conversational prompt)."""
    out = tokenizer.apply_chat_template(
        list(messages), add_generation_prompt=True, tokenize=True, return_dict=True, **kw
    )
    ids = out["input_ids"]
    return [int(t) for t in (ids[0] if ids and isinstance(ids[0], list) else ids)]


def _first_solution(value: Any) -> str | None:
    """The first reference of a `solutions` list, or of a codemix `ground_truth` JSON string (its
    first in the language the prompt asks for: a CodeContests record's first may be C++)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value or None
    if isinstance(value, Mapping):
        value = [code for code, _ in programs_in(value, value.get("language") or "python")]
    if isinstance(value, list):
        return str(value[0]) if value and value[0] else None
    return None if value is None else str(value)


@torch.no_grad()
def reference_log_likelihood(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[Prompt],
    references: Sequence[str | None],
    batch_size: int = 8,
    max_length: int = 4096,
) -> np.ndarray:
    """Mean log-probability per token of each reference after its prompt (NaN for a missing or empty
    reference). A prompt is text (tokenized with the tokenizer's special tokens) or the token ids
    the trainer generates from (`chat_prompt_ids`, `MixerGRPOTrainer.reference_scorer`). Sequences longer than `max_length` tokens keep at least half of it for the reference
    (the prompt loses its start first, then the reference its end). The model is put in eval mode
    for the call and restored after."""
    if len(prompts) != len(references):
        raise ValueError(f"{len(prompts)} prompts for {len(references)} references")
    if batch_size < 1 or max_length < 2:
        raise ValueError("need batch_size >= 1 and max_length >= 2")
    pad = getattr(tokenizer, "pad_token_id", None)
    if pad is None:
        pad = getattr(tokenizer, "eos_token_id", None)
    pad = 0 if pad is None else int(pad)
    out = np.full(len(prompts), np.nan)
    seqs: list[tuple[int, list[int], int]] = []  # (row, ids, number of prompt tokens)
    for i, (prompt, ref) in enumerate(zip(prompts, references)):
        if not ref:
            continue
        p_ids, r_ids = _prompt_ids(tokenizer, prompt), _ids(tokenizer, ref, False)
        if not r_ids or not p_ids:  # the first reference token needs a token before it
            continue
        keep_r = min(len(r_ids), max(max_length - len(p_ids), max_length // 2), max_length - 1)
        keep_p = min(len(p_ids), max_length - keep_r)
        seqs.append((i, p_ids[len(p_ids) - keep_p :] + r_ids[:keep_r], keep_p))
    if not seqs:
        return out
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    try:
        seqs.sort(key=lambda s: len(s[1]))
        for start in range(0, len(seqs), batch_size):
            chunk = seqs[start : start + batch_size]
            width = max(len(s[1]) for s in chunk)
            ids = torch.full((len(chunk), width), pad, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            scored = torch.zeros((len(chunk), width - 1), dtype=torch.bool)
            for k, (_, seq, n_prompt) in enumerate(chunk):
                ids[k, : len(seq)] = torch.tensor(seq)
                mask[k, : len(seq)] = 1
                scored[k, n_prompt - 1 : len(seq) - 1] = True  # predictions of reference tokens
            logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
            logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
            tok = logp.gather(-1, ids[:, 1:].to(device)[..., None]).squeeze(-1).cpu()
            tok = torch.where(scored, tok, torch.zeros_like(tok))
            mean = tok.sum(1) / scored.sum(1)
            for k, (row, _, _) in enumerate(chunk):
                out[row] = float(mean[k])
    finally:
        model.train(was_training)
    return out


def dataset_references(dataset: Any, column: str | None = None) -> list[str | None]:
    """One reference per row of a trainer's dataset: the first of `column` (default: `solutions`
    if the dataset has it, else the `solutions` in codemix's `ground_truth` column, which
    `codemix export --format trl` writes), None where a row has none."""
    from mixer.rows import dataset_column

    if column is None:
        column = next(
            (c for c in ("solutions", "ground_truth") if dataset_column(dataset, c) is not None),
            "solutions",
        )
    values = dataset_column(dataset, column)
    if values is None:
        raise ValueError(f"the dataset has no column {column!r} to take references from")
    return [_first_solution(v) for v in values]


class ReferenceLikelihood:
    """A `FrontierSampler` scorer: `scorer(indices)` is `reference_log_likelihood` of the problems at
    those global indices, whose prompts and references are given once, in global-index order.

        scorer = ReferenceLikelihood.from_table(model, tokenizer, sampler.dataset)
        sampler.set_scorer(scorer)
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        prompts: Sequence[Prompt],
        references: Sequence[str | None],
        batch_size: int = 8,
        max_length: int = 4096,
    ) -> None:
        if len(prompts) != len(references):
            raise ValueError(f"{len(prompts)} prompts for {len(references)} references")
        self.model, self.tokenizer = model, tokenizer
        self.prompts, self.references = list(prompts), list(references)
        self.batch_size, self.max_length = int(batch_size), int(max_length)

    @classmethod
    def from_table(
        cls,
        model: Any,
        tokenizer: Any,
        table: Any,
        prompt_column: str = "statement",
        solutions_column: str = "solutions",
        format_prompt: Callable[[str], str] | None = None,
        **kw: Any,
    ) -> ReferenceLikelihood:
        """From a codemix build's table (`sampler.dataset`): the prompt is `prompt_column` (passed
        through `format_prompt`, e.g. the chat template your trainer applies), the reference the
        first of `solutions_column` (a list column) or the column's string."""
        for col in (prompt_column, solutions_column):
            if col not in table.column_names:
                raise ValueError(f"table has no column {col!r}; columns: {table.column_names}")
        prompts = [str(x or "") for x in table.column(prompt_column).to_pylist()]
        if format_prompt is not None:
            prompts = [format_prompt(p) for p in prompts]
        refs = [
            (s[0] if s else None) if isinstance(s, list) else s
            for s in table.column(solutions_column).to_pylist()
        ]
        return cls(model, tokenizer, prompts, refs, **kw)

    @classmethod
    def from_dataset(
        cls,
        model: Any,
        tokenizer: Any,
        dataset: Any,
        prompt_column: str = "prompt",
        reference_column: str | None = None,
        render: Callable[[Any], Prompt] | None = None,
        **kw: Any,
    ) -> ReferenceLikelihood:
        """From the dataset the trainer reads, row for row (`FrontierSampler.from_dataset` of the
        same dataset): the prompt as the trainer feeds it (a conversational prompt, a list of
        messages, through the tokenizer's chat template with the generation prompt, as TRL does;
        text as it is; or `render(prompt)` -> text or token ids), the reference the first of
        `reference_column` (default: `solutions` if the dataset has it, else the `solutions` in a
        codemix `ground_truth` column, as `codemix export --format trl` writes)."""
        from mixer.rows import dataset_column

        prompts_raw = dataset_column(dataset, prompt_column)
        if prompts_raw is None:
            raise ValueError(f"the dataset has no column {prompt_column!r}")
        refs = dataset_references(dataset, reference_column)

        def as_prompt(p: Any) -> Prompt:
            if render is not None:
                return render(p)
            if isinstance(p, str):
                return p
            return chat_prompt_ids(tokenizer, p)

        return cls(
            model,
            tokenizer,
            [as_prompt(p) for p in prompts_raw],
            refs,
            **kw,
        )

    def __call__(self, indices: np.ndarray) -> np.ndarray:
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= len(self.prompts)):
            raise IndexError(f"indices outside the {len(self.prompts)} problems given")
        return reference_log_likelihood(
            self.model,
            self.tokenizer,
            [self.prompts[i] for i in idx],
            [self.references[i] for i in idx],
            batch_size=self.batch_size,
            max_length=self.max_length,
        )
