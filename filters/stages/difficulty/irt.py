"""Item-response fit (1PL / 2PL) of pass counts, in torch, with a Laplace posterior.

Model: a model m passes problem p with probability sigmoid(a_m * (theta_m - b_p)), where b_p is
the problem's logit difficulty, theta_m the model's ability and a_m its discrimination (1 in
1PL). Priors: b_p ~ N(prior_mean_p, prior_std_p^2) (from the label prior or the feature model,
so problems with few attempts stay near it), theta_m ~ N(0, ability_std^2), log a_m ~ N(0,
log_disc_std^2) with the log discriminations summing to zero (otherwise the 2PL scale is not
identified: the priors would shrink every b and inflate every a). The fit is the posterior mode (L-BFGS); `b_std` is the marginal posterior
standard deviation from the Laplace approximation with the Fisher information (the Gauss-Newton
Hessian), which accounts for the uncertainty of the abilities through a Schur complement.

On the shards' [0, 1] scale, `difficulty = sigmoid(b)` (the logistic squashing, monotone) and
`difficulty_std = sigmoid'(b) * b_std` (delta method).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # torch is imported when a fit runs, so importing `filters` stays cheap
    import torch

__all__ = ["IRTFit", "fit_irt", "unit_to_logit", "logit_to_unit"]

_EPS = 0.02


def unit_to_logit(d: np.ndarray | float, std: np.ndarray | float | None = None):
    """[0, 1] difficulty (and its std) to the logit scale; inverse of `logit_to_unit`."""
    d = np.clip(np.asarray(d, dtype=float), _EPS, 1 - _EPS)
    b = np.log(d / (1 - d))
    if std is None:
        return b
    return b, np.asarray(std, dtype=float) / (d * (1 - d))


def logit_to_unit(b: np.ndarray | float, b_std: np.ndarray | float | None = None):
    """Logit difficulty to [0, 1] by the logistic function; the std by the delta method."""
    d = 1.0 / (1.0 + np.exp(-np.asarray(b, dtype=float)))
    if b_std is None:
        return d
    return d, d * (1 - d) * np.asarray(b_std, dtype=float)


@dataclass
class IRTFit:
    """Posterior mode and Laplace standard deviations of an item-response fit."""

    b: np.ndarray  # logit difficulty per problem
    b_std: np.ndarray
    theta: np.ndarray  # ability per model
    theta_std: np.ndarray
    a: np.ndarray  # discrimination per model (ones for 1PL)
    two_pl: bool
    converged: bool
    note: str | None = None  # e.g. why a 2PL request was fitted as 1PL

    def difficulty(self) -> tuple[np.ndarray, np.ndarray]:
        """(difficulty, difficulty_std) on the [0, 1] scale (logistic of b, delta method)."""
        return logit_to_unit(self.b, self.b_std)

    def p_pass(self, problems: np.ndarray, models: np.ndarray) -> np.ndarray:
        z = self.a[models] * (self.theta[models] - self.b[problems])
        return 1.0 / (1.0 + np.exp(-z))


def _as_t(x: np.ndarray) -> torch.Tensor:
    import torch

    return torch.as_tensor(np.asarray(x, dtype=np.float64))


def _map_fit(
    pi: torch.Tensor,
    mi: torch.Tensor,
    k: torch.Tensor,
    n: torch.Tensor,
    mu: torch.Tensor,
    s: torch.Tensor,
    n_models: int,
    ability_std: float,
    log_disc_std: float,
    two_pl: bool,
    init: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None,
    max_iter: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, bool]:
    import torch

    b = (init[0] if init else mu).clone().requires_grad_(True)
    theta = (
        (init[1] if init else torch.zeros(n_models, dtype=torch.float64))
        .clone()
        .requires_grad_(True)
    )
    basis = torch.as_tensor(_sum_zero_basis(n_models))
    gamma = torch.zeros(basis.shape[1], dtype=torch.float64, requires_grad=two_pl)
    params = [b, theta] + ([gamma] if two_pl else [])
    opt = torch.optim.LBFGS(
        params,
        lr=1.0,
        max_iter=max_iter,
        tolerance_grad=1e-9,
        tolerance_change=1e-12,
        history_size=20,
        line_search_fn="strong_wolfe",
    )
    scale = float(max(1.0, n.sum().item()))

    def loss_fn() -> torch.Tensor:
        alpha = basis @ gamma
        z = torch.exp(alpha)[mi] * (theta[mi] - b[pi])
        nll = -(
            k * torch.nn.functional.logsigmoid(z) + (n - k) * torch.nn.functional.logsigmoid(-z)
        ).sum()
        prior = 0.5 * (((b - mu) / s) ** 2).sum() + 0.5 * ((theta / ability_std) ** 2).sum()
        if two_pl:
            prior = prior + 0.5 * ((gamma / log_disc_std) ** 2).sum()
        return (nll + prior) / scale

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    opt.step(closure)
    opt.zero_grad()
    loss = loss_fn()
    loss.backward()
    gmax = max(float(p.grad.abs().max()) for p in params if p.grad is not None and p.grad.numel())
    return b.detach(), theta.detach(), (basis @ gamma).detach(), gmax < 1e-5


def _sum_zero_basis(m: int) -> np.ndarray:
    """Orthonormal basis (m x (m-1)) of the vectors summing to zero."""
    if m <= 1:
        return np.zeros((m, 0))
    q, _ = np.linalg.qr(np.eye(m) - 1.0 / m)
    return q[:, : m - 1]


def fit_irt(
    problem_idx: np.ndarray,
    model_idx: np.ndarray,
    passed: np.ndarray,
    attempts: np.ndarray,
    n_problems: int,
    n_models: int,
    prior_mean: np.ndarray | float = 0.0,
    prior_std: np.ndarray | float = 2.0,
    two_pl: bool = False,
    ability_std: float = 3.0,
    log_disc_std: float = 0.3,
    max_iter: int = 500,
    min_pair_attempts_2pl: float = 8.0,
) -> IRTFit:
    """Fit difficulties and abilities to pass counts (one entry per problem-model pair).

    `prior_mean` / `prior_std` are on the logit scale, per problem or scalar. Problems without
    attempts keep their prior (mean and std). A 2PL fit needs several attempts per
    (problem, model) pair: with fewer than `min_pair_attempts_2pl` on average, a model that
    passes (or fails) nearly everything can take a flat curve (a -> 0) and the others' scale
    collapses, so the fit falls back to 1PL and says so in `note`.
    """
    import torch

    pi = torch.as_tensor(np.asarray(problem_idx, dtype=np.int64))
    mi = torch.as_tensor(np.asarray(model_idx, dtype=np.int64))
    k, n = _as_t(passed), _as_t(attempts)
    if (k < 0).any() or (k > n).any():
        raise ValueError("passed must lie in [0, attempts]")
    mu = _as_t(np.broadcast_to(np.asarray(prior_mean, dtype=float), (n_problems,)).copy())
    s = _as_t(np.broadcast_to(np.asarray(prior_std, dtype=float), (n_problems,)).copy())
    note = None
    if two_pl and len(n) and float(n.mean()) < min_pair_attempts_2pl:
        two_pl = False
        note = (
            f"2PL needs >= {min_pair_attempts_2pl:g} attempts per (problem, model) on average, "
            f"got {float(n.mean()):.1f}: fitted 1PL"
        )
    args = (pi, mi, k, n, mu, s, n_models, ability_std, log_disc_std)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: more threads only add contention
    try:
        b, theta, alpha, ok = _map_fit(*args, False, None, max_iter)
        if two_pl:
            b, theta, alpha, ok = _map_fit(*args, True, (b, theta, alpha), max_iter)
    finally:
        torch.set_num_threads(threads)
    b_np, theta_np, alpha_np = b.numpy(), theta.numpy(), alpha.numpy()
    b_std, theta_std = _laplace_std(
        pi.numpy(), mi.numpy(), n.numpy(), b_np, theta_np, alpha_np, s.numpy(),
        ability_std, log_disc_std, two_pl,
    )  # fmt: skip
    return IRTFit(b_np, b_std, theta_np, theta_std, np.exp(alpha_np), two_pl, ok, note)


def _laplace_std(
    pi: np.ndarray,
    mi: np.ndarray,
    n: np.ndarray,
    b: np.ndarray,
    theta: np.ndarray,
    alpha: np.ndarray,
    s: np.ndarray,
    ability_std: float,
    log_disc_std: float,
    two_pl: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Marginal posterior stds of b and theta from the Gauss-Newton Hessian (block Schur form)."""
    n_p, n_m = len(b), len(theta)
    a = np.exp(alpha)
    z = a[mi] * (theta[mi] - b[pi])
    sig = 1.0 / (1.0 + np.exp(-z))
    w = n * sig * (1 - sig)
    # gradients of z: d/db = -a, d/dtheta = a, d/dalpha = z
    A = np.bincount(pi, weights=w * a[mi] ** 2, minlength=n_p) + 1.0 / s**2
    C = _sum_zero_basis(n_m) if two_pl else np.zeros((n_m, 0))
    kdim = n_m + C.shape[1]
    B = np.zeros((n_p, kdim))
    np.add.at(B, (pi, mi), -w * a[mi] ** 2)
    D = np.zeros((kdim, kdim))
    D[np.arange(n_m), np.arange(n_m)] = (
        np.bincount(mi, weights=w * a[mi] ** 2, minlength=n_m) + 1.0 / ability_std**2
    )
    if C.shape[1]:
        # alpha = C @ gamma, so d z / d gamma = z * C[m]
        Bg = np.zeros((n_p, n_m))
        np.add.at(Bg, (pi, mi), -w * a[mi] * z)
        B[:, n_m:] = Bg @ C
        cross = np.bincount(mi, weights=w * a[mi] * z, minlength=n_m)
        D[:n_m, n_m:] = cross[:, None] * C
        D[n_m:, :n_m] = D[:n_m, n_m:].T
        zz = np.bincount(mi, weights=w * z**2, minlength=n_m)
        D[n_m:, n_m:] = C.T @ (zz[:, None] * C) + np.eye(C.shape[1]) / log_disc_std**2
    Ainv = 1.0 / A
    S = D - (B * Ainv[:, None]).T @ B  # Schur complement: precision of the model parameters
    S_inv = np.linalg.inv(S)
    AB = B * Ainv[:, None]
    var_b = Ainv + np.einsum("pk,kl,pl->p", AB, S_inv, AB)
    var_theta = np.diag(S_inv)[:n_m]
    return np.sqrt(np.maximum(var_b, 0.0)), np.sqrt(np.maximum(var_theta, 0.0))
