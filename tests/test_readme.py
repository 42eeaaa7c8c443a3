"""Every command in the README's tour runs, and gives what its comment says (typer's habit: test each
documented example, and check the outputs that matter: kept counts, files written)."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from curation.cli import app
from curation.store import read_manifest
from tests.conftest import SHARED_DATA

README = Path(__file__).resolve().parents[1] / "README.md"
runner = CliRunner()


def tour() -> list[tuple[str, str, str]]:
    """(command, tag, comment) for each `codemix` line of the tour; tag is '', 'shared' or 'hub'."""
    text = README.read_text()
    block = text[text.index("## A tour of the commands") :]
    block = block[block.index("```bash") + 7 : block.index("```", block.index("```bash") + 7)]
    lines = []
    for line in block.strip().splitlines():
        cmd, _, comment = line.partition("#")
        comment = comment.strip()
        tag = re.match(r"(shared|hub)\b:?\s*", comment)
        lines.append(
            (cmd.strip(), tag.group(1) if tag else "", comment[tag.end() :] if tag else comment)
        )
    return lines


def kept(out: Path) -> dict[str, int]:
    return read_manifest(out)["counts"]["output"]


def _demo(r, out: Path, comment: str) -> None:
    m = read_manifest(out)
    n_in, n_out = sum(m["counts"]["input"].values()), sum(m["counts"]["output"].values())
    assert f"{n_in} read, {n_out} kept, in {len(m['counts']['input'])} sources" in comment
    assert f"{n_in} problems read, {n_out} kept" in r.output
    assert (out / "report" / "index.html").exists() and (
        out / "problems" / "part-00000.parquet"
    ).exists()


def _demo3(r, out: Path, comment: str) -> None:
    assert f"{sum(kept(out).values())} kept" in comment


def _diff(r, out: Path, comment: str) -> None:
    n, pid = re.match(r"(\d+) added: (\S+)", comment).groups()
    assert f"{n} added (kept in B only)" in r.output and pid in r.output


def _query_sources(r, out: Path, comment: str) -> None:
    for src, n in kept(out).items():
        assert re.search(rf"{src}\W+{n}\b", r.output), (src, n)


def _query_rejected(r, out: Path, comment: str) -> None:
    assert (
        "demo-interview/call-close-pair" in r.output
        and "contaminated:humaneval:HumanEval/0" in r.output
    )


def _files(*names: str) -> Callable:
    def check(r, out: Path, comment: str) -> None:
        for name in names:
            assert (out / name).exists(), name

    return check


def _by_source(r, out: Path, comment: str) -> None:
    files = re.findall(r"\S+\.jsonl", comment)
    assert sorted(p.name for p in out.glob("*.jsonl")) == sorted(files)
    assert (out / "README.md").exists()


def _verify(r, out: Path, comment: str) -> None:
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len({x["id"] for x in lines}) == 5


def _hx(r, out: Path, comment: str) -> None:
    m = read_manifest(out)
    n = m["counts"]["input"]["humaneval-x"]
    assert f"0 of {n} kept" in comment and kept(out) == {} and r.exit_code == 1
    assert f"note: humaneval-x: 0 of {n} kept. decontam dropped {n} as contaminated" in r.output


def _shared(r, out: Path, comment: str) -> None:
    k, n, t = map(int, re.match(r"(\d+) of (\d+) MBPP kept, a note says (\d+)", comment).groups())
    m = read_manifest(out)
    assert m["counts"]["input"]["mbpp"] == n and kept(out)["mbpp"] == k
    assert kept(out)["codecontests-subset"] > 0
    note = next(x for x in m["notes"] if x["source"] == "mbpp")
    assert note["dropped"][0] == {**note["dropped"][0], "stage": "decontam", "rows": t}
    assert "mbpp-test" in note["dropped"][0]["hint"] and f"note: mbpp: {k} of {n} kept" in r.output


def _says(*words: str) -> Callable:
    def check(r, out: Path, comment: str) -> None:
        for w in words:
            assert w in r.output, w

    return check


def _info(r, out: Path, comment: str) -> None:
    for src, n in kept(out).items():
        assert re.search(rf"{src}\W.*\W{n}\W", r.output), src
    assert "reject reasons" in r.output and "difficulty buckets" in r.output


def _nothing(r, out: Path, comment: str) -> None:
    """Not run here (needs the hub)."""


#: what each tour line must give, by its first words; a new line needs an entry here
CHECKS: dict[str, tuple[str, Callable]] = {
    "codemix sources": ("", _says("mbpp", "humaneval-x", "taco")),
    "codemix recipes": ("", _says("deepcoder", "demo")),
    "codemix build --out out/demo ": ("out/demo", _demo),
    "codemix info out/demo": ("out/demo", _info),
    'codemix query out/demo "SELECT source': ("out/demo", _query_sources),
    'codemix query out/demo "SELECT problem_id': ("out/demo", _query_rejected),
    "codemix build --out out/demo-3": ("out/demo-3", _demo3),
    "codemix diff": ("", _diff),
    "codemix export out/demo --format verl": (
        "out/verl",
        _files("train.parquet", "test.parquet", "README.md"),
    ),
    "codemix export out/demo --format trl": ("out/trl", _files("dataset_dict.json", "train")),
    "codemix export out/demo --format jsonl": ("out/by-source", _by_source),
    "codemix verify humaneval": ("out/humaneval-verify.jsonl", _verify),
    "codemix build --source humaneval-x": ("out/hx", _hx),
    "codemix build --source mbpp": ("out/shared", _shared),
    "codemix build --recipe deepcoder": ("", _nothing),
}


def test_the_tour_is_found_and_every_line_has_a_check():
    cmds = tour()
    assert len(cmds) >= 10 and all(c.startswith("codemix ") for c, _, _ in cmds)
    for cmd, _, _ in cmds:
        assert sum((cmd + " ").startswith(k) for k in CHECKS) == 1, cmd


def test_the_tour_runs_in_order_and_gives_what_it_says(tmp_path, monkeypatch):
    monkeypatch.chdir(README.parent)
    for cmd, tag, comment in tour():
        if tag == "hub":
            continue  # no hub here; the loader's offline behaviour is tested in test_sources_registry
        if tag == "shared" and not SHARED_DATA.is_dir():
            continue
        args = [re.sub(r"^out/", f"{tmp_path}/out/", a) for a in shlex.split(cmd)[1:]]
        r = runner.invoke(app, args)
        assert r.exit_code == (1 if comment.endswith("exit 1") else 0), f"{cmd}\n{r.output}"
        where, check = next(v for k, v in CHECKS.items() if (cmd + " ").startswith(k))
        check(r, tmp_path / where, comment)


def _python_example(section: str) -> str:
    text = README.read_text()
    block = text[text.index(section) :]
    start = block.index("```python") + len("```python")
    return block[start : block.index("```", start)]


def test_the_mixing_example_runs_on_the_demo_build_and_stops(demo_build, tmp_path, monkeypatch):
    """The README's training loop, with a real (tiny) model: it ends by itself after `num_steps`
    (an example that draws forever is a trap) and the mixer learns from every step."""
    import shutil

    import torch

    monkeypatch.chdir(tmp_path)
    shutil.copytree(demo_build, tmp_path / "out" / "demo")  # `codemix build --out out/demo`
    code = _python_example("## Mixing sources during training")
    steps = int(re.search(r"num_steps=(\d+)", code).group(1))
    code = code.replace(f"num_steps={steps}", "num_steps=12")  # the same loop, shorter
    torch.manual_seed(0)
    model = torch.nn.Linear(1, 1)

    def per_sample_loss(model, rows):  # a loss per problem from its statement's length
        x = torch.tensor([[len(p) / 1000.0] for p in rows.column("statement").to_pylist()])
        return (model(x).squeeze(1) - 1.0) ** 2

    scope = {"model": model, "per_sample_loss": per_sample_loss}
    scope["opt"] = torch.optim.SGD(model.parameters(), lr=0.1)
    exec(compile(code, "README.md", "exec"), scope)
    sampler = scope["sampler"]
    assert sampler.steps == 12 and sampler.mixer.step == 12
    assert len(sampler.names) == 3 and (tmp_path / "out" / "mix.jsonl").exists()


def test_ci_runs_the_readme_test_command_as_written_before_the_extras():
    """CI installed the extras before the suite, so a test that failed without them (psutil) went
    unseen: `.ci/run` now reads the README's test command and runs it first, in a fresh `.venv`."""
    import subprocess

    ci = (README.parent / ".ci" / "run").read_text()
    (extract,) = [line for line in ci.splitlines() if line.startswith("readme_tests=$(")]
    found = subprocess.run(["bash", "-c", f'{extract}\nprintf %s "$readme_tests"'], cwd=README.parent,
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    text = README.read_text()
    block = text[text.index("Install and run the tests") :]
    block = block[block.index("```bash\n") + 8 :]
    assert found == block[: block.index("\n")] and "pytest" in found and "'.[dev]'" in found
    steps = [ci.index(s) for s in ("rm -rf .venv\n", 'bash -euo pipefail -c "$readme_tests"', "'.[dev,ray,trl]'")]
    assert steps == sorted(steps)
