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


def _rollouts(path: Path, ids: list[str]) -> Path:
    import random

    rng = random.Random(0)
    with path.open("w") as f:
        for model, skill in (("weak", 0.3), ("strong", 0.8)):
            for i, pid in enumerate(ids):
                p = min(0.95, max(0.05, skill - 0.02 * (i % 20)))
                n = sum(rng.random() < p for _ in range(8))
                f.write(json.dumps({"problem_id": pid, "model": model, "passed": n, "attempts": 8}) + "\n")
    return path


def test_info_export_and_rank_read_a_build_on_s3(tmp_path, bucket):
    """`codemix info`, `export` and `rank` of a build on S3 say and write what they do for the same
    build on a local disk; rank's shards and manifest land back on the store."""
    from typer.testing import CliRunner

    from curation.cli import app

    runner = CliRunner()
    src = tmp_path / "toy.jsonl"
    write_jsonl(_rows(), src)
    local = Path(build(_config(str(src)), tmp_path / "local").out)
    uri = f"s3://{bucket}/builds/toy"
    build(_config(str(src)), uri)

    for_local, for_s3 = (runner.invoke(app, ["info", str(where)]) for where in (local, uri))
    assert for_local.exit_code == 0 and for_s3.exit_code == 0, for_s3.output
    def squeezed(text: str, where: str) -> str:  # (rich wraps a long title: compare without whitespace)
        return "".join(text.split()).replace(where, "OUT")

    assert uri in "".join(for_s3.output.split())
    assert squeezed(for_s3.output, uri) == squeezed(for_local.output, str(local))

    exported = {}
    for name, where in (("local", str(local)), ("s3", uri)):
        r = runner.invoke(app, ["export", where, "--format", "jsonl", "--out", str(tmp_path / f"exp-{name}")])
        assert r.exit_code == 0, r.output
        exported[name] = sorted((tmp_path / f"exp-{name}").rglob("*.jsonl"))
        assert exported[name]
    assert [p.read_bytes() for p in exported["local"]] == [p.read_bytes() for p in exported["s3"]]
    marker = json.loads((tmp_path / "exp-s3" / ".codemix-export.json").read_text())
    assert marker["build"] == uri

    ids = pq.read_table(local / "problems", columns=["problem_id"]).column("problem_id").to_pylist()
    rollouts = _rollouts(tmp_path / "r.jsonl", ids)
    for where in (str(local), uri):
        r = runner.invoke(app, ["rank", where, "--rollouts", str(rollouts), "--keep-pass-rate", "0.1:0.9",
                                "--target-model", "weak"])  # fmt: skip
        assert r.exit_code == 0, r.output
    assert not Loc.of(f"{uri}/.codemix.lock").exists()  # given back
    got = _download(uri, tmp_path / "ranked-from-s3")
    ours, theirs = comparable(got), comparable(local)
    for c in (ours, theirs):
        c["manifest"]["config"]["sources"][0]["path"] = None
        c["manifest"]["rank"].pop("rollouts_file", None)
    assert ours == theirs
    assert "rank" in ours["manifest"] and ours["manifest"]["counts"]["rejected"] > theirs["manifest"]["counts"]["rejected"] - 1
    assert sorted(p.name for p in (got / "rejected").iterdir()) == sorted(p.name for p in (local / "rejected").iterdir())


def test_a_second_build_into_the_same_s3_prefix_is_refused(tmp_path, bucket):
    """While a build writes to an s3:// prefix, it holds a lock object created with If-None-Match;
    a second build there is refused naming the first, and the lock goes when the first ends."""
    from filters.contracts import UserError

    src = tmp_path / "toy.jsonl"
    write_jsonl(_rows(), src)
    out = f"s3://{bucket}/builds/toy"
    refused: list[str] = []

    def second_build_midway(stage, done, total, extra):
        if stage == "dedup" and total and 0 < done < total and not refused:
            with pytest.raises(UserError, match="being written by another process") as e:
                build(_config(str(src)), out)
            refused.append(str(e.value))

    first = build(_config(str(src)), out, progress=second_build_midway)
    assert refused and "pid " in refused[0]
    assert first.manifest["counts"]["output"]
    assert not Loc.of(f"{out}/.codemix.lock").exists()
    assert build(_config(str(src)), out).already_complete  # the prefix is free again


def test_a_dead_builds_s3_lock_is_taken_over_and_a_users_file_never(tmp_path, bucket):
    from curation.objectlock import hold_object_lock
    from filters.contracts import UserError

    out = Loc.of(f"s3://{bucket}/builds/x")
    lock = Loc.of(f"s3://{bucket}/builds/x/.codemix.lock")
    lock.write_bytes_atomic(json.dumps({"pid": 1, "host": "gone", "command": "codemix build"}).encode())
    with pytest.raises(UserError, match="pid 1 on gone: codemix build"):  # refreshed just now: alive
        with hold_object_lock(out):
            pass
    said: list[str] = []
    with hold_object_lock(out, lease_s=-1, say=said.append):  # not refreshed within the lease: dead
        assert json.loads(lock.read_bytes())["host"] != "gone"
    assert said and "took over the lock" in said[0] and not lock.exists()

    lock.write_bytes_atomic(b"my own notes")
    with pytest.raises(UserError, match="is not a codemix lock"):
        with hold_object_lock(out, lease_s=-1):
            pass
    assert lock.read_bytes() == b"my own notes"
