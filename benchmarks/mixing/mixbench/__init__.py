"""Shared helpers for the mixer benchmarks (`mix_lm.py`, `mix_rl.py`): models, data, loops, reporting."""
