"""The build report: `report/index.html` with a funnel table and PNG plots, readable without a server.

Integer quantities (tests per problem, cluster sizes, counts) are drawn on integer axes; the
reasons table has a source column, as `codemix info` does; the difficulty table says when a bucket
holds one tied value (buckets are equal-count quantiles of the order difficulty, then the feature
model's prediction, then problem_id, so tied problems are split across buckets).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from curation.store import (
    PROBLEMS_DIR,
    REJECTED_DIR,
    REPORT_DIR,
    atomic_write_text,
    read_manifest,
    shard_files,
)

__all__ = ["write_report", "PLOTS", "difficulty_buckets", "reason_rows", "checker_counts"]


def _column(out: Path, kind: str, name: str) -> list[Any]:
    import pyarrow.parquet as pq

    values: list[Any] = []
    for f in shard_files(out, kind):
        schema = pq.read_schema(f)
        if name in schema.names:
            values.extend(pq.read_table(f, columns=[name]).column(name).to_pylist())
    return values


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    return plt, fig, ax


def _save(plt, fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _integer_axis(axis) -> None:
    """Ticks only at whole numbers (counts, tests, cluster sizes)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _plot_funnel(out: Path, manifest: dict[str, Any], path: Path) -> bool:
    stages = manifest["counts"]["stages"]
    sources = sorted(manifest["counts"]["input"])
    if not stages or not sources:
        return False
    plt, fig, ax = _figure()
    labels = ["input"] + [s["stage"] for s in stages]
    bottom = [0] * len(labels)
    for src in sources:
        vals = [manifest["counts"]["input"].get(src, 0)] + [s["kept"].get(src, 0) for s in stages]
        ax.bar(labels, vals, bottom=bottom, label=src)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("problems kept")
    ax.set_title("Funnel: problems left after each stage")
    _integer_axis(ax.yaxis)
    # beside the plot, never over the bars
    ax.legend(
        fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False
    )
    ax.tick_params(axis="x", labelrotation=20)
    _save(plt, fig, path)
    return True


def _plot_reasons(out: Path, manifest: dict[str, Any], path: Path) -> bool:
    items = [
        (f"{s['stage']}:{k}", v)
        for s in manifest["counts"]["stages"]
        for k, v in s["reasons"].items()
    ]
    if not items:
        return False
    items.sort(key=lambda kv: kv[1])
    plt, fig, ax = _figure()
    ax.barh([k for k, _ in items], [v for _, v in items], color="tab:red")
    _integer_axis(ax.xaxis)
    ax.set_xlabel("rows dropped")
    ax.set_title("Reject reasons")
    _save(plt, fig, path)
    return True


def _hist(
    column: str,
    title: str,
    xlabel: str,
    log: bool = False,
    kind: str = PROBLEMS_DIR,
    integer: bool = False,
) -> Callable:
    def plot(out: Path, manifest: dict[str, Any], path: Path) -> bool:
        vals = [v for v in _column(out, kind, column) if v is not None]
        if not vals:
            return False
        plt, fig, ax = _figure()
        _integer_axis(ax.yaxis)
        if integer:  # one bar per whole number, centred on it
            lo, hi = int(min(vals)), int(max(vals))
            ax.hist(vals, bins=[x - 0.5 for x in range(lo, hi + 2)], color="tab:blue", rwidth=0.9)
            _integer_axis(ax.xaxis)
        elif log:
            import numpy as np

            pos = [v for v in vals if v > 0]
            if not pos:
                return False
            bins = np.logspace(np.log10(min(pos)), np.log10(max(pos)) + 1e-9, 30)
            ax.hist(pos, bins=bins, color="tab:blue")
            ax.set_xscale("log")
        else:
            ax.hist(vals, bins=30, color="tab:blue")
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("problems")
        _save(plt, fig, path)
        return True

    return plot


def _plot_calibration(out: Path, manifest: dict[str, Any], path: Path) -> bool:
    try:
        from filters.stages.difficulty import plot_calibration
    except ImportError:
        return False
    import pyarrow.parquet as pq

    tables = [pq.read_table(f) for f in shard_files(out, PROBLEMS_DIR)]
    if not tables:
        return False
    table = pa.concat_tables(tables, promote_options="default")
    return bool(plot_calibration(table, path, abilities=manifest.get("rank", {}).get("abilities")))


#: file name -> (title, plotting function); each returns False when its data is absent.
PLOTS: dict[str, tuple[str, Callable[[Path, dict[str, Any], Path], bool]]] = {
    "funnel.png": ("Funnel per stage and source", _plot_funnel),
    "reasons.png": ("Reject reasons", _plot_reasons),
    "difficulty.png": (
        "Difficulty",
        _hist("difficulty", "Difficulty (0 easy .. 1 hard)", "difficulty"),
    ),
    "runtime.png": (
        "Reference runtime",
        _hist("ref_cpu_ms", "Reference solution CPU time", "ms (log scale)", log=True),
    ),
    "tests.png": (
        "Tests per problem",
        _hist("tests_total", "Tests per problem", "tests", integer=True),
    ),
    "dup_clusters.png": (
        "Duplicate cluster sizes",
        _hist(
            "dup_cluster_size", "Duplicate cluster sizes (kept rows)", "cluster size", integer=True
        ),
    ),
    "test_strength.png": (
        "Test strength",
        _hist("test_strength", "Test strength (share of wrong programs rejected)", "strength"),
    ),
    "calibration.png": ("Difficulty calibration", _plot_calibration),
}


def _funnel_table(manifest: dict[str, Any]) -> str:
    counts = manifest["counts"]
    stages = counts["stages"]
    head = "".join(f"<th>after {html.escape(s['stage'])}</th>" for s in stages)
    rows = []
    for src in sorted(counts["input"]):
        cells = "".join(f"<td>{s['kept'].get(src, 0)}</td>" for s in stages)
        rows.append(f"<tr><td>{html.escape(src)}</td><td>{counts['input'][src]}</td>{cells}</tr>")
    total = "".join(f"<td><b>{sum(s['kept'].values())}</b></td>" for s in stages)
    rows.append(
        f"<tr><td><b>total</b></td><td><b>{sum(counts['input'].values())}</b></td>{total}</tr>"
    )
    return f"<table><tr><th>source</th><th>input</th>{head}</tr>{''.join(rows)}</table>"


def reason_rows(out: Path) -> list[tuple[str, str, str, int, str]]:
    """(stage, reason, source, rows, an example reason) per kind of drop, in pipeline order."""
    import pyarrow.parquet as pq

    groups: dict[tuple[str, str, str], list[str]] = {}
    for f in shard_files(out, REJECTED_DIR):
        t = pq.read_table(f, columns=["reject_stage", "reject_reason", "source"])
        for st, r, src in zip(*(t.column(c).to_pylist() for c in t.column_names)):
            kind = (r or "").split(":", 1)[0].split(" ", 1)[0]
            groups.setdefault((st, kind, src or "?"), []).append(r or "")
    order = {
        s["stage"]: i
        for i, s in enumerate((read_manifest(out) or {}).get("counts", {}).get("stages", []))
    }
    keys = sorted(groups, key=lambda k: (order.get(k[0], len(order)), -len(groups[k]), k[1], k[2]))
    return [
        (st, kind, src, len(groups[(st, kind, src)]), groups[(st, kind, src)][0])
        for st, kind, src in keys
    ]


def _reasons_table(out: Path) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(st)}</td><td>{html.escape(k)}</td><td>{html.escape(src)}</td><td>{n}</td>"
        f"<td><code>{html.escape(example[:120])}</code></td></tr>"
        for st, k, src, n, example in reason_rows(out)
    )
    head = "<tr><th>stage</th><th>reason</th><th>source</th><th>rows</th><th>example</th></tr>"
    return f"<table>{head}{rows}</table>"


def checker_counts(out: Path) -> dict[str, int]:
    """Kept problems per judge (verify's `checker_kind`: none, python, testlib, standard) and,
    for standard checkers, per name (`standard:rcmp6`); empty when verify did not run."""
    counts: dict[str, int] = {}
    kinds = _column(out, PROBLEMS_DIR, "checker_kind")
    names = _column(out, PROBLEMS_DIR, "checker") if kinds else []
    for kind, name in zip(kinds, names):
        if kind is None:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "standard":
            key = f"standard:{name}"
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def _checkers_table(out: Path) -> str:
    counts = checker_counts(out)
    if not counts:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{n}</td></tr>" for k, n in counts.items()
    )
    return f"<h2>Judges of kept problems</h2><table><tr><th>checker</th><th>problems</th></tr>{rows}</table>"


def difficulty_buckets(out: Path) -> list[dict[str, Any]]:
    """Per difficulty bucket: problems, min / mean / max difficulty, distinct values, and a note when
    the bucket is one tied value or shares a value with another bucket."""
    diffs, buckets = (
        _column(out, PROBLEMS_DIR, "difficulty"),
        _column(out, PROBLEMS_DIR, "difficulty_bucket"),
    )
    by: dict[int | None, list[float | None]] = {}
    for d, b in zip(diffs, buckets):
        by.setdefault(b, []).append(d)
    values_in = {b: {round(v, 9) for v in vs if v is not None} for b, vs in by.items()}
    rows = []
    for b in sorted(by, key=lambda x: (x is None, x if x is not None else 0)):
        vals = [v for v in by[b] if v is not None]
        row: dict[str, Any] = {"bucket": b, "problems": len(by[b]), "distinct": len(values_in[b])}
        row.update(
            min=min(vals) if vals else None,
            mean=sum(vals) / len(vals) if vals else None,
            max=max(vals) if vals else None,
        )
        shared = sorted(o for o in by if o is not None and o != b and values_in[o] & values_in[b])
        note = []
        if b is None:
            note.append("no difficulty known (no label, no rollouts, no feature model)")
        elif len(values_in[b]) == 1 and vals:
            note.append(f"one tied value ({vals[0]:.3f})")
        if shared:
            note.append(
                f"shares values with bucket{'s' if len(shared) > 1 else ''} {', '.join(map(str, shared))}"
            )
        row["note"] = "; ".join(note)
        rows.append(row)
    return rows


def _difficulty_table(out: Path) -> str:
    rows = difficulty_buckets(out)
    if not rows:
        return ""

    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    body = "".join(
        f"<tr><td>{'none' if r['bucket'] is None else r['bucket']}</td><td>{r['problems']}</td><td>{r['distinct']}</td>"
        f"<td>{fmt(r['min'])}</td><td>{fmt(r['mean'])}</td><td>{fmt(r['max'])}</td><td>{html.escape(r['note'])}</td></tr>"
        for r in rows
    )
    return (
        "<h2>Difficulty buckets</h2><p>Buckets are equal-count quantiles of the order (difficulty, the feature "
        "model's prediction, problem_id): problems with the same difficulty (one label) can fall in "
        "different buckets, and a bucket can hold one tied value.</p>"
        "<table><tr><th>bucket</th><th>problems</th><th>distinct values</th><th>min</th><th>mean</th>"
        f"<th>max</th><th>note</th></tr>{body}</table>"
    )


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
td:first-child,th:first-child,td:has(code){text-align:left}figure{display:inline-block;margin:0.5em}
img{max-width:520px;border:1px solid #eee}code{font-size:85%}"""


def write_report(
    out: str | Path, manifest: dict[str, Any] | None = None, timing: dict[str, float] | None = None
) -> Path:
    """Write `report/index.html` and its PNGs for the build in `out`; returns the HTML path."""
    out = Path(out)
    manifest = manifest or read_manifest(out)
    if manifest is None:
        raise FileNotFoundError(f"{out} has no manifest")
    rep = out / REPORT_DIR
    rep.mkdir(parents=True, exist_ok=True)
    figures = []
    for name, (title, plot) in PLOTS.items():
        if plot(out, manifest, rep / name):
            figures.append(
                f'<figure><img src="{name}" alt="{html.escape(title)}"><figcaption>{html.escape(title)}</figcaption></figure>'
            )
    if timing is not None:
        atomic_write_text(rep / "timing.json", json.dumps(timing, indent=2) + "\n")
    timing = timing or {}
    timing_rows = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{v:.2f}</td></tr>" for k, v in timing.items()
    )
    n_in, n_out = (
        sum(manifest["counts"]["input"].values()),
        sum(manifest["counts"]["output"].values()),
    )
    stages = [s["stage"] for s in manifest["counts"]["stages"]]
    notes = "".join(f"<li>{html.escape(n['line'])}</li>" for n in manifest.get("notes", []))
    against = (
        ", ".join(
            f"{d['name']} ({d.get('problems', '?')} problems"
            + (f", shipped, {d['licence']}" if d.get("shipped") else "")
            + ")"
            for d in manifest.get("decontamination", [])
        )
        or "nothing (decontamination was off)"
    )
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>codemix build report</title>
<style>{_CSS}</style></head><body>
<h1>codemix build report</h1>
<p>{n_in} problems read, <b>{n_out} kept</b>, {manifest["counts"]["rejected"]} rejected.
Sources: {html.escape(", ".join(s["name"] for s in manifest["config"]["sources"]))}.
Stages run: {html.escape(", ".join(stages))} (<code>schema</code> always runs first; the others are the configured ones).
Decontaminated against: {html.escape(against)}.</p>
{'<h2>Notes</h2><ul class="notes">' + notes + "</ul>" if notes else ""}
<h2>Funnel</h2>{_funnel_table(manifest)}
<h2>Reject reasons</h2>{_reasons_table(out)}
{_checkers_table(out)}
{_difficulty_table(out)}
<h2>Plots</h2>{"".join(figures)}
{"<h2>Time per stage (s)</h2><table><tr><th>stage</th><th>seconds</th></tr>" + timing_rows + "</table>" if timing_rows else ""}
<h2>Configuration</h2><pre>{html.escape(json.dumps(manifest["config"], indent=2))}</pre>
<script>window.addEventListener("load", () => {{
  document.body.dataset.images = document.images.length;
  document.body.dataset.brokenImages = [...document.images].filter(i => !i.naturalWidth).length;
}});</script>
</body></html>
"""
    path = rep / "index.html"
    atomic_write_text(path, page)
    return path
