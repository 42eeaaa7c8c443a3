"""Training-time data mixing: policies that choose per-step sampling weights across sources."""

__all__: list[str] = []
