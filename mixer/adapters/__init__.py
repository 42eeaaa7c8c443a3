"""Framework adapters: plain PyTorch (`mixer.adapters.torch`), Hugging Face Trainer (`.hf`), TRL GRPO (`.trl`), verl (`.verl`).

Each is imported on demand so that `mixer` never requires transformers, trl or verl.
"""

__all__: list[str] = []
