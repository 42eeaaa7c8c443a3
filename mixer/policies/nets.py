"""Tiny numpy building blocks for the actor-critic: Adam on a flat vector, named views into it."""

from __future__ import annotations

import numpy as np

__all__ = ["Adam", "param_views"]


class Adam:
    """Adam on one flat parameter vector (in place)."""

    def __init__(self, size: int, lr: float, b1: float = 0.9, b2: float = 0.999) -> None:
        self.lr, self.b1, self.b2, self.t = lr, b1, b2, 0
        self.m = np.zeros(size)
        self.v = np.zeros(size)

    def step(self, param: np.ndarray, grad: np.ndarray, ascend: bool = False) -> None:
        self.t += 1
        self.m *= self.b1
        self.m += (1 - self.b1) * grad
        self.v *= self.b2
        self.v += (1 - self.b2) * grad * grad
        lr = self.lr * np.sqrt(1 - self.b2**self.t) / (1 - self.b1**self.t)
        step = lr * self.m / (np.sqrt(self.v) + 1e-8)
        if ascend:
            param += step
        else:
            param -= step

    def state(self) -> dict:
        return {"t": self.t, "m": self.m.copy(), "v": self.v.copy()}

    def load(self, st: dict) -> None:
        self.t = int(st["t"])
        self.m = np.asarray(st["m"], dtype=np.float64).copy()
        self.v = np.asarray(st["v"], dtype=np.float64).copy()


def param_views(flat: np.ndarray, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """Named views into one flat vector, in the order of `shapes`."""
    out, i = {}, 0
    for k, shp in shapes.items():
        size = int(np.prod(shp))
        out[k] = flat[i : i + size].reshape(shp)
        i += size
    return out
