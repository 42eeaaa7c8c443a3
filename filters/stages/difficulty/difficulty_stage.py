"""The `difficulty` stage: one [0, 1] difficulty per problem, its uncertainty, source and bucket.

Per row, in order of preference:
- `irt`: the item-response fit of rollouts (when given), with the label or feature value as prior;
- `label`: the label prior of the row's own `difficulty_label`;
- `features`: the feature model, fitted on the labelled rows of the same run;
  (with rollouts, label and feature values of unattempted rows are mapped onto the fitted scale
  by a line on the logit scale, fitted on rows that have both);
- nothing known (no label, no rollouts, too few labelled rows to fit): null difficulty and bucket.

Buckets are equal-count quantiles of difficulty; ties (many rows share a label) are broken by the
feature model's prediction, then by problem_id, so buckets stay balanced and deterministic.
With rollouts the stage also writes `pass_rate` and `attempts` (maps model -> value) and can keep
only problems whose pass rate for a target model lies in a window.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from filters.contracts import ProblemRow, UserError
from filters.settings import DifficultyConfig
from filters.stage import Decision, GlobalStage
from filters.stages.difficulty.features import (
    FEATURES,
    FeatureModel,
    cross_val_predict,
    feature_matrix,
    problem_features,
)
from filters.stages.difficulty.irt import IRTFit, fit_irt, logit_to_unit, unit_to_logit
from filters.stages.difficulty.labels import label_prior
from filters.stages.difficulty.rollouts import RolloutCounts, in_window
from filters.stages.difficulty.stats import quantile_buckets

__all__ = [
    "DifficultyConfig",
    "DifficultyStage",
    "RankStage",
    "DIFFICULTY_SCHEMA",
    "ROLLOUT_SCHEMA",
]

DIFFICULTY_SCHEMA = pa.schema(
    [
        pa.field("difficulty", pa.float64()),
        pa.field("difficulty_std", pa.float64()),
        pa.field("difficulty_source", pa.string()),
        pa.field("difficulty_bucket", pa.int32()),
    ]
)
ROLLOUT_SCHEMA = pa.schema(
    [
        pa.field("pass_rate", pa.map_(pa.string(), pa.float64())),
        pa.field("attempts", pa.map_(pa.string(), pa.int64())),
    ]
)
_READ = (
    "problem_id",
    "id",
    "source",
    "statement",
    "solutions",
    "tags",
    "difficulty_label",
    "ref_cpu_ms",
    "tests_total",
)
_MIN_PRIOR_STD, _MAX_PRIOR_STD, _NO_PRIOR_STD = 0.3, 3.0, 2.0


def _key(row: Mapping[str, Any]) -> str:
    pid = row.get("problem_id")
    return pid if isinstance(pid, str) and pid else f"{row.get('source')}/{row.get('id')}"


class DifficultyStage(GlobalStage):
    """Global stage `difficulty`; see the module docstring. Made from a `DifficultyConfig`
    (`DifficultyStage(DifficultyConfig(buckets=3))`; None: the defaults) and the rollouts, if any.

    Args:
        rollouts: pass counts per (problem_id, model); enables the IRT fit and the pass-rate columns.
        buckets: number of quantile buckets (`difficulty_bucket` in 0..buckets-1).
        two_pl: fit a 2PL model (a discrimination per model) instead of 1PL.
        keep_pass_rate: (lo, hi) window; rows whose observed pass rate for `target_model` lies
            outside it are dropped. Rows the target model never attempted are kept.
        target_model: the model the window applies to (default: the only model in the rollouts).
        min_labelled: labelled rows needed before the feature model is fitted.
        ridge_alpha: ridge penalty of the feature model.
        min_align: rows with both a prior and rollouts needed to map the rows without rollouts
            onto the fitted scale (a line on the logit scale); fewer keeps the label scale.
    """

    name = "difficulty"
    #: The feature model reads `ref_cpu_ms`, a measurement, so unlabelled rows' values can move a little.
    measured_columns = ("difficulty", "difficulty_std", "difficulty_bucket")
    measured_reasons = {
        c: "the feature model reads ref_cpu_ms, a measurement, so unlabelled rows' values can move"
        for c in measured_columns
    }
    output_schema = DIFFICULTY_SCHEMA

    settings_class = DifficultyConfig
    settings: DifficultyConfig

    def __init__(
        self,
        settings: DifficultyConfig | None = None,
        *,
        rollouts: RolloutCounts | None = None,
    ) -> None:
        self.settings = self.settings_from(settings)
        self.rollouts = rollouts
        if self.settings.keep_pass_rate is not None:
            self.settings.target_model = self._target_model()
        if rollouts is not None:
            self.output_schema = pa.schema([*DIFFICULTY_SCHEMA, *ROLLOUT_SCHEMA])
        self._keys: list[str] = []
        self._feats: list[np.ndarray] = []  # float32 matrices, one per observed batch
        self._tags: list[list[str]] = []
        self._label: list[tuple[float, float] | None] = []
        self._result: dict[str, dict[str, Any]] = {}
        self.fit: IRTFit | None = None
        self.feature_model: FeatureModel | None = None
        #: What `decide` found: counts per difficulty_source, feature-model held-out Spearman, abilities.
        self.summary: dict[str, Any] = {}

    def _target_model(self) -> str:
        """The model a pass-rate window applies to: the one named, else the rollouts' only one."""
        models = self.rollouts.models if self.rollouts is not None else []
        target = self.settings.target_model
        if not models:
            raise UserError("--keep-pass-rate needs rollouts (--rollouts FILE.jsonl)")
        if target is None:
            if len(models) != 1:
                raise UserError(
                    f"--keep-pass-rate needs --target-model; the rollouts hold {', '.join(models)}"
                )
            return models[0]
        if target not in models:
            raise UserError(
                f"target model {target!r} is not in the rollouts; they hold {', '.join(models)}"
            )
        return target

    def config(self) -> dict[str, Any]:
        """The settings (the target model resolved), and the models the rollouts hold."""
        models = self.rollouts.models if self.rollouts is not None else []
        return {**super().config(), "rollout_models": models}

    def environment(self) -> dict[str, Any]:
        """What the fit found (the build stores it in the manifest's `environment`)."""
        return dict(self.summary)

    # phase 1 ---------------------------------------------------------------------------------
    #: `_READ`, and the suites for their lengths where `tests_total` is absent
    observe_columns = (*_READ, "tests")

    def observe(self, batch: pa.Table) -> None:
        names = [c for c in _READ if c in batch.column_names]
        rows = batch.select(names).to_pylist()
        if "tests_total" not in batch.column_names and "tests" in batch.column_names:
            lengths = pc.fill_null(pc.list_value_length(batch["tests"]), 0).to_pylist()
            for r, n in zip(rows, lengths):
                r["tests_total"] = n
        self._feats.append(feature_matrix([problem_features(r) for r in rows]))
        for r in rows:
            self._keys.append(_key(r))
            self._tags.append(list(r.get("tags") or []))
            lp = label_prior(r.get("difficulty_label"), r.get("source"))
            self._label.append((lp.difficulty, lp.std) if lp else None)

    # phase 2 ---------------------------------------------------------------------------------
    def decide(self) -> None:
        n = len(self._keys)
        d = np.full(n, np.nan)
        sd = np.full(n, np.nan)
        src: list[str | None] = [None] * n
        labels = {i: lab for i, lab in enumerate(self._label) if lab is not None}
        for i, (mean, std) in labels.items():
            d[i], sd[i] = mean, std
            src[i] = "label"
        pred = self._fit_features(labels, d, sd, src)
        if self.rollouts is not None:
            self._fit_rollouts(d, sd, src)
        by_problem = self.rollouts.by_problem() if self.rollouts is not None else {}
        self._result = {
            self._keys[i]: self._row_result(d[i], sd[i], src[i], by_problem.get(self._keys[i], {}))
            for i in range(n)
        }
        # buckets over the rows that stay (a pass-rate window must not unbalance them)
        known = [
            i
            for i in range(n)
            if src[i] is not None and self._outside(self._result[self._keys[i]]) is None
        ]
        buckets = quantile_buckets(
            [(d[i], pred[i], self._keys[i]) for i in known], self.settings.buckets
        )
        for j, i in enumerate(known):
            self._result[self._keys[i]]["difficulty_bucket"] = int(buckets[j])
        counts: dict[str, int] = {}
        for s in src:
            counts[s or "none"] = counts.get(s or "none", 0) + 1
        self.summary["difficulty_source"] = counts
        self._keys, self._feats, self._tags, self._label = [], [], [], []

    def _fit_features(
        self,
        labels: dict[int, tuple[float, float]],
        d: np.ndarray,
        sd: np.ndarray,
        src: list[str | None],
    ) -> np.ndarray:
        """Fit the feature model on the labelled rows (when there are `min_labelled` with more
        than one label) and give its prediction to the rows without a label; every row's
        prediction (0.5 without a model), which breaks ties between buckets."""
        n = len(self._keys)
        labelled = list(labels)
        y = np.array([mean for mean, _ in labels.values()])
        if len(labelled) < self.settings.min_labelled or len(np.unique(y)) <= 1:
            return np.full(n, 0.5)
        feats = np.vstack(self._feats) if self._feats else np.zeros((0, len(FEATURES)), np.float32)
        alpha = self.settings.ridge_alpha
        fl, tl = feats[labelled], [self._tags[i] for i in labelled]
        self.feature_model = FeatureModel(alpha=alpha).fit(fl, tl, y)
        pred = self.feature_model.predict(feats, self._tags)
        _, rho = cross_val_predict(fl, tl, y, alpha=alpha)
        self.summary["feature_model"] = {
            "train_rows": len(labelled),
            "heldout_spearman": round(rho, 4),
            "residual_std": round(self.feature_model.residual_std, 4),
        }
        for i in range(n):
            if src[i] is None:
                d[i], sd[i], src[i] = pred[i], self.feature_model.residual_std, "features"
        return pred

    def _row_result(
        self, d: float, sd: float, src: str | None, stats: dict[str, tuple[int, int]]
    ) -> dict[str, Any]:
        """One row's columns (its bucket comes last); with rollouts, its pass rate and attempts
        per model from `stats` (model -> (passed, attempts))."""
        ok = src is not None
        res: dict[str, Any] = {
            "difficulty": float(d) if ok else None,
            "difficulty_std": float(sd) if ok and np.isfinite(sd) else None,
            "difficulty_source": src,
            "difficulty_bucket": None,
        }
        if self.rollouts is not None:
            res["pass_rate"] = {m: k / a for m, (k, a) in sorted(stats.items()) if a > 0} or None
            res["attempts"] = {m: a for m, (_, a) in sorted(stats.items())} or None
        return res

    def _fit_rollouts(self, d: np.ndarray, sd: np.ndarray, src: list[str | None]) -> None:
        assert self.rollouts is not None
        index = {k: i for i, k in enumerate(self._keys)}
        models = self.rollouts.models
        m_index = {m: j for j, m in enumerate(models)}
        rows = [
            (index[p], m_index[m], k, a)
            for (p, m), (k, a) in self.rollouts.counts.items()
            if p in index and a > 0
        ]
        unknown = len({p for p, _ in self.rollouts.counts if p not in index})
        self.summary["rollouts"] = {"problems_not_in_shards": unknown, "pairs_used": len(rows)}
        if not rows:
            return
        used = sorted({r[0] for r in rows})
        local = {g: j for j, g in enumerate(used)}
        mean = np.zeros(len(used))
        std = np.full(len(used), _NO_PRIOR_STD)
        for j, g in enumerate(used):
            if src[g] is not None:
                b, sb = unit_to_logit(d[g], sd[g])
                mean[j], std[j] = b, float(np.clip(sb, _MIN_PRIOR_STD, _MAX_PRIOR_STD))
        arr = np.array(rows, dtype=float)
        self.fit = fit_irt(
            np.array([local[int(g)] for g in arr[:, 0]]),
            arr[:, 1].astype(int),
            arr[:, 2],
            arr[:, 3],
            len(used),
            len(models),
            prior_mean=mean,
            prior_std=std,
            two_pl=self.settings.two_pl,
        )
        prior_rows = [j for j, g in enumerate(used) if src[g] is not None]
        dd, ds = logit_to_unit(self.fit.b, self.fit.b_std)
        for j, g in enumerate(used):
            d[g], sd[g], src[g] = dd[j], ds[j], "irt"
        self._align_unattempted(d, sd, src, mean[prior_rows], self.fit.b[prior_rows])
        self.summary["abilities"] = {
            m: {
                "theta": round(float(self.fit.theta[j]), 4),
                "theta_std": round(float(self.fit.theta_std[j]), 4),
                "discrimination": round(float(self.fit.a[j]), 4),
            }
            for j, m in enumerate(models)
        }
        self.summary["irt_converged"] = self.fit.converged
        if self.fit.note:
            self.summary["irt_note"] = self.fit.note

    def _align_unattempted(
        self, d: np.ndarray, sd: np.ndarray, src: list[str | None], x: np.ndarray, y: np.ndarray
    ) -> None:
        """Put rows without rollouts on the fitted scale: b = alpha + beta * logit(prior).

        The line is fitted on the rows that have both a prior (label or features) and an IRT
        fit, so a label-only problem lands where attempted problems with the same label did.
        Needs `min_align` such rows and a positive slope; else the label scale is kept as is.
        """
        if len(x) < self.settings.min_align or np.std(x) < 1e-6:
            return
        beta, alpha = np.polyfit(x, y, 1)
        if beta <= 0:
            return
        resid = float(np.std(y - (alpha + beta * x)))
        for g in range(len(d)):
            if src[g] in ("label", "features"):
                b, sb = unit_to_logit(d[g], sd[g])
                d[g], sd[g] = logit_to_unit(alpha + beta * b, np.hypot(beta * sb, resid))
        self.summary["aligned_to_irt"] = {
            "alpha": round(float(alpha), 4),
            "beta": round(float(beta), 4),
            "residual_std": round(resid, 4),
            "rows": int(len(x)),
        }

    # phase 3 ---------------------------------------------------------------------------------
    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        if not self._result and rows:
            raise RuntimeError("DifficultyStage.judge_rows before observe/decide")
        out = []
        for r in rows:
            res = self._result.get(_key(r))
            if res is None:
                raise RuntimeError(f"DifficultyStage: row {_key(r)} was not observed")
            rate = self._outside(res)
            window, model = self.settings.keep_pass_rate, self.settings.target_model
            if rate is not None and window is not None:
                lo, hi = window
                out.append(
                    Decision.drop(
                        f"pass_rate_outside:{lo:g}:{hi:g} (model={model}, pass_rate={rate:.3g})",
                        model=model,
                        pass_rate=rate,
                        attempts=res["attempts"][model],
                        difficulty=res["difficulty"],
                    )
                )
            else:
                out.append(Decision(True, columns=res))
        return out

    def _outside(self, res: dict[str, Any]) -> float | None:
        """The target model's pass rate when it lies outside the window, else None."""
        window, model = self.settings.keep_pass_rate, self.settings.target_model
        if window is None or not res.get("pass_rate") or model not in res["pass_rate"]:
            return None
        rate = res["pass_rate"][model]
        return None if in_window(rate, window) else rate


class RankStage(DifficultyStage):
    """The difficulty stage fitted from rollouts and run on a finished build (`codemix rank`),
    under a name of its own: its counts and rejected rows are `rank`'s, not the build's."""

    name = "rank"
