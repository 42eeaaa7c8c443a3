"""A build writes to, resumes from and reads its sources from an S3-compatible store.

The store is moto's S3 server (`moto[server]`, a dev dependency), started on 127.0.0.1 by the
test; pyarrow's S3 filesystem talks to it over HTTP as it would to AWS or MinIO.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from curation.build import BuildConfig, SourceSpec, build
from curation.record_files import write_jsonl
from curation.storage import Loc, as_loc
from tests.curation.reproducible import comparable

server = pytest.importorskip("moto.server")
boto3 = pytest.importorskip("boto3")

LIGHT = ["schema", "exact_id", "dedup", "difficulty"]  # no sandbox: the storage is what is tested


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3_endpoint():
    port = _free_port()
    srv = server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    yield f"http://127.0.0.1:{port}"
    srv.stop()


@pytest.fixture
def bucket(s3_endpoint, monkeypatch, request):
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                 "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": s3_endpoint}.items():  # fmt: skip
        monkeypatch.setenv(k, v)
    name = "codemix-" + request.node.name.replace("_", "-")[:40].lower()
    boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1").create_bucket(Bucket=name)
    return name


def _rows(n: int = 40) -> list[dict]:
    rows = [
        {
            "id": f"p{i:03d}",
            "source": "toy" if i % 3 else "other",
            "statement": f"Read nothing and print {i} times {i}, then stop.",
            "test_type": "stdio",
            "tests": [{"input": "", "output": f"{i * i}\n"}],
            "solutions": [f"print({i} * {i})"],
        }
        for i in range(n)
    ]
    return rows + [dict(rows[5]), dict(rows[7], id="copy7")]  # a repeated id, a duplicate statement


def _config(path: str) -> BuildConfig:
    return BuildConfig(
        sources=[SourceSpec("canonical", path)], stages=LIGHT[1:], batch_rows=4, shard_rows=9
    )


def _download(uri: str, local: Path) -> Path:
    return Loc.of(uri).download(local)


def test_build_writes_resumes_and_reads_sources_on_s3(tmp_path, bucket):
    src = tmp_path / "toy.jsonl"
    write_jsonl(_rows(), src)
    Loc.of(f"s3://{bucket}/in/toy.jsonl").write_bytes_atomic(src.read_bytes())
    local = build(_config(str(src)), tmp_path / "local")

    out = f"s3://{bucket}/builds/toy"
    seen: list[tuple[str, int]] = []

    def stop_in_dedup(stage, done, total, extra):
        seen.append((stage, done))
        if stage == "dedup" and total and 0 < done < total:
            raise KeyboardInterrupt  # as a killed build: some units committed, no manifest

    with pytest.raises(KeyboardInterrupt):
        build(_config(f"s3://{bucket}/in/toy.jsonl"), out, progress=stop_in_dedup)
    work = as_loc(out) / ".work"
    assert not (as_loc(out) / "manifest.json").exists()
    assert list(work.glob("*/unit-*.json")), "the interrupted build committed no unit to the store"

    resumed = build(_config(f"s3://{bucket}/in/toy.jsonl"), out)
    assert resumed.resumed and resumed.out == out
    assert not work.exists()  # the work directory goes once the manifest is written
    got = _download(out, tmp_path / "from-s3")
    ours, theirs = comparable(got), comparable(Path(local.out))
    for c in (ours, theirs):  # the same rows, read from the store or the disk
        c["manifest"]["config"]["sources"][0]["path"] = None
    assert ours == theirs
    manifest = json.loads((got / "manifest.json").read_text())
    for f in manifest["problems"]:
        assert pq.read_table(got / f["file"]).num_rows == f["rows"]

    again = build(_config(f"s3://{bucket}/in/toy.jsonl"), out)
    assert again.already_complete


def test_cli_build_to_s3_refuses_a_foreign_prefix(tmp_path, bucket):
    from typer.testing import CliRunner

    from curation.cli import app

    Loc.of(f"s3://{bucket}/taken/notes.txt").write_bytes_atomic(b"mine")
    src = tmp_path / "toy.jsonl"
    write_jsonl(_rows(8), src)
    r = CliRunner().invoke(app, ["build", "--source", str(src), "--out", f"s3://{bucket}/taken",
                                 "--skip", "verify", "--no-decontaminate"])  # fmt: skip
    assert r.exit_code != 0 and "not empty" in r.output
    assert Loc.of(f"s3://{bucket}/taken/notes.txt").read_bytes() == b"mine"  # left alone
    r = CliRunner().invoke(app, ["build", "--source", str(src), "--out", f"s3://{bucket}/fresh",
                                 "--skip", "verify", "--no-decontaminate"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert json.loads(Loc.of(f"s3://{bucket}/fresh/manifest.json").read_text())["counts"]["output"]
