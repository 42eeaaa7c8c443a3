"""The Ray executor runs the same stage code as the local one and writes the same build."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.record_files import write_jsonl
from tests.curation.reproducible import comparable

pytest.importorskip("ray")
runner = CliRunner()


def test_ray_build_equals_local_build(tmp_path):
    rows = [
        {
            "id": f"r{i}",
            "source": "toy",
            "statement": f"Print the square of {i}.",
            "test_type": "stdio",
            "tests": [{"input": "", "output": f"{i * i}\n"}] * 5,
            "solutions": [f"print({i} * {i})"],
        }
        for i in range(1, 21)  # (print(0 * 0)'s mutants all print 0: weak_tests)
    ]
    rows.append(dict(rows[3]))
    write_jsonl(rows, tmp_path / "toy.jsonl")
    builds = []
    for executor in ("local", "ray"):
        out = tmp_path / executor
        r = runner.invoke(
            app,
            [
                "build",
                "--source",
                str(tmp_path / "toy.jsonl"),
                "--out",
                str(out),
                "--batch-rows",
                "4",
                "--executor",
                executor,
                "--workers",
                "2",
            ],
        )
        assert r.exit_code == 0, r.output
        builds.append(comparable(out))
    local, ray = builds
    assert local["manifest"]["counts"]["output"] == {"toy": 20}
    for part in ("manifest", "problems", "rejected"):
        assert local[part] == ray[part], part
