"""B3's small code model: a byte-level BPE tokenizer trained here (`tokenizers`) and a
`transformers` Llama of a few million parameters, pre-trained on the reference programs of the
families' pre-training settings (disjoint from every RL problem), prompted exactly as
`codemix export --format trl` prompts (the user message through the tokenizer's chat template).
No hub access: everything is built from the task definitions."""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

__all__ = ["SIZES", "ModelSize", "build_tokenizer", "new_model", "pretrain", "chat_prompt"]

CODE = "<|code|>"
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'user' %}{{ m['content'] }}"
    "{% else %}" + CODE + "{{ m['content'] }}{{ eos_token }}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}" + CODE + "{% endif %}"
)


@dataclass(frozen=True)
class ModelSize:
    hidden: int
    layers: int
    heads: int
    vocab: int = 1024


SIZES = {
    "tiny": ModelSize(96, 3, 4),  # ~0.5M parameters
    "small": ModelSize(160, 4, 4),  # ~1.4M
    "base": ModelSize(256, 6, 8),  # ~5M
    "large": ModelSize(512, 8, 8),  # ~26M, for a GPU
}


def chat_prompt(statement_prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": statement_prompt}]


def build_tokenizer(texts: list[str], vocab: int) -> Any:
    """A byte-level BPE tokenizer trained on `texts`, as a `PreTrainedTokenizerFast` with a chat
    template: `<bos>` user text `<|code|>` program `<eos>`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    special = ["<pad>", "<bos>", "<eos>", CODE]
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>"
    )
    fast.add_special_tokens({"additional_special_tokens": [CODE]})
    fast.chat_template = CHAT_TEMPLATE
    fast.padding_side = "left"
    return fast


def new_model(tokenizer: Any, size: ModelSize, seed: int) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=size.hidden,
        intermediate_size=size.hidden * 3,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        num_key_value_heads=size.heads,
        max_position_embeddings=256,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(cfg)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def _examples(tokenizer: Any, pairs: list[tuple[str, str]]) -> list[tuple[list[int], int]]:
    """(token ids of prompt + program + eos, length of the prompt part) per (prompt, program)."""
    out = []
    for prompt, program in pairs:
        p = tokenizer.apply_chat_template(
            chat_prompt(prompt), add_generation_prompt=True, tokenize=False
        )
        ids_p = tokenizer(p, add_special_tokens=False)["input_ids"]
        ids_c = tokenizer(program, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        out.append((ids_p + ids_c, len(ids_p)))
    return out


def pretrain(
    model: Any,
    tokenizer: Any,
    pairs: list[tuple[str, str]],
    steps: int,
    batch_size: int = 32,
    lr: float = 2e-3,
    seed: int = 0,
    device: str = "cpu",
    on_checkpoint: Any = None,
    every: int = 0,
    stop: int | None = None,
) -> list[dict[str, float]]:
    """Next-token loss on the program tokens only (after `<|code|>`), AdamW with a cosine schedule;
    `on_checkpoint(step)` is called every `every` steps; `stop` ends the run early (the schedule
    stays the one of `steps`). Returns the loss log."""
    ex = _examples(tokenizer, pairs)
    rng = np.random.default_rng(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt,
        lambda s: min(1.0, (s + 1) / 20) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)),
    )
    model.to(device).train()
    log, t0 = [], time.perf_counter()
    pad = tokenizer.pad_token_id
    for step in range(1, min(steps, stop or steps) + 1):
        pick = rng.choice(len(ex), size=min(batch_size, len(ex)), replace=False)
        width = max(len(ex[i][0]) for i in pick)
        ids = torch.full((len(pick), width), pad, dtype=torch.long)
        labels = torch.full((len(pick), width), -100, dtype=torch.long)
        mask = torch.zeros((len(pick), width), dtype=torch.long)
        for r, i in enumerate(pick):
            seq, n_p = ex[i]
            ids[r, : len(seq)] = torch.tensor(seq)
            labels[r, n_p : len(seq)] = torch.tensor(seq[n_p:])
            mask[r, : len(seq)] = 1
        out = model(
            input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels.to(device)
        )
        opt.zero_grad()
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 25 == 0 or step == steps:
            log.append(
                {"step": step, "loss": float(out.loss.detach()), "s": time.perf_counter() - t0}
            )
        if on_checkpoint is not None and every and step % every == 0:
            on_checkpoint(step)
            model.train()
    model.eval()
    return log


def size_info(model: Any, size: ModelSize) -> dict[str, Any]:
    return {**asdict(size), "parameters": int(sum(p.numel() for p in model.parameters()))}


def save(model: Any, tokenizer: Any, path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)


def load(path: Path, device: str = "cpu") -> tuple[Any, Any]:
    from transformers import LlamaForCausalLM, PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast.from_pretrained(path)
    tok.padding_side = "left"
    model = LlamaForCausalLM.from_pretrained(path).to(device).eval()
    return model, tok
