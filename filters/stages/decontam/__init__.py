"""Benchmark decontamination (`stage.py`) and the benchmark sets it compares against (`references.py`)."""
