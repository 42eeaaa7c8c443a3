"""The sandbox's worker: a stdlib-only script (`main.py`) and its parts, run as a separate process; `wire.py` is the message format it shares with the sandbox."""
