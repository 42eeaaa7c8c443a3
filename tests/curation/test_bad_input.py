"""Bad input, round two (issue 57): each kind is one line on stderr (exit 2) or one rejected row,
never a traceback or click's bare `Aborted!`; docs/pipeline.md lists them with their messages.

Inputs are the embedded demo's real rows, written out and then damaged the way a user's file is
(a byte that is not UTF-8, a byte-order mark, a partial download). Builds here run the reading
stages only (`schema`, `exact_id`), where every rule of this file applies, unless a test needs more.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.demo import demo_records
from curation.outlock import LOCK_FILE, hold_out_lock
from curation.store import read_table, sha256_file
from tests.conftest import wait_s

runner = CliRunner()
READ_ONLY = ["--skip", "verify", "--skip", "dedup", "--skip", "difficulty", "--no-decontaminate"]


def _rows(n: int = 6) -> list[dict[str, Any]]:
    return [r for r in demo_records() if isinstance(r, dict) and r["source"] == "demo-contest"][:n]


def _lines(rows: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(r).encode() + b"\n" for r in rows]


def _cli(*args: str) -> Any:
    r = runner.invoke(app, list(args))
    assert "Traceback" not in r.output and "Aborted!" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r


def _one_line_error(r: Any) -> str:
    """The single `error:` line of a refused command (exit 2)."""
    assert r.exit_code == 2, r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    return lines[0]


def _build(src: Path, out: Path, *extra: str) -> Any:
    return _cli("build", "--source", str(src), "--out", str(out), "--workers", "1", *READ_ONLY, *extra)


def _rejected(out: Path) -> list[dict[str, Any]]:
    rows = read_table(out, "rejected").to_pylist()
    for r in rows:
        r["detail"] = json.loads(r["reject_detail"])
    return rows


# -- 1. two builds into one --out at once ---------------------------------------------------------


def _build_cmd(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "curation.cli", "build", "--out", str(out), "--workers", "2", *extra]


def _wait_for_lock(proc: subprocess.Popen, out: Path) -> None:
    """Until the build `proc` holds the lock of `out` (its pid is in the lock file)."""
    while True:
        try:
            if (out / LOCK_FILE).read_text().startswith(f"{proc.pid}\n"):
                return
        except OSError:
            pass
        assert proc.poll() is None, "the build ended before it took the lock"
        time.sleep(0.02)


def _whole(out: Path) -> dict[str, Any]:
    """A finished build's manifest, checked against its files: every shard's sha256 and row count,
    and no problem both kept and rejected."""
    manifest = json.loads((out / "manifest.json").read_text())
    for shard in manifest["problems"] + manifest["rejected"]:
        path = out / shard["file"]
        assert sha256_file(path) == shard["sha256"] and pq.read_metadata(path).num_rows == shard["rows"]
    assert manifest["counts"]["rejected"] == sum(s["rows"] for s in manifest["rejected"])
    kept = set(read_table(out, "problems").column("problem_id").to_pylist())
    rejected = set(read_table(out, "rejected").column("problem_id").to_pylist())
    assert not kept & rejected, kept & rejected
    assert not (out / ".work").exists() and not (out / LOCK_FILE).exists()
    return manifest


def test_two_builds_into_one_out_at_once_one_is_refused_and_the_other_is_whole(tmp_path):
    """Issue 57.1: the default and `--min-tests 3` into one --out both exited 0 and left a build
    whose manifest did not match its shards."""
    out = tmp_path / "out"
    first = subprocess.Popen(_build_cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_lock(first, out)
        second = subprocess.run(_build_cmd(out, "--min-tests", "3"), capture_output=True, text=True,
                                timeout=wait_s(120))  # fmt: skip
        _, err = first.communicate(timeout=wait_s(300))
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    assert second.returncode == 2 and "Traceback" not in second.stderr, second.stderr
    (line,) = second.stderr.strip().splitlines()
    assert line.startswith(f"error: {out} is being written by another process (pid {first.pid}: ")
    assert f"(pid {first.pid}: codemix build --out {out} --workers 2); a second build there is refused" in line
    manifest = _whole(out)
    assert manifest["config"]["verify"]["min_tests"] == 5  # the first's configuration, whole
    assert "demo-contest/stdio-any-divisor" not in set(read_table(out).column("problem_id").to_pylist())


def test_a_killed_build_leaves_no_lock_behind_and_its_rerun_finishes(tmp_path):
    """flock dies with its process: a SIGKILLed build's lock file may stay, held by nobody."""
    out = tmp_path / "out"
    proc = subprocess.Popen(_build_cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_lock(proc, out)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (out / LOCK_FILE).exists() and not (out / "manifest.json").exists()
    r = subprocess.run(_build_cmd(out), capture_output=True, text=True, timeout=wait_s(300))
    assert r.returncode == 0, r.stderr
    _whole(out)


def test_export_verify_and_rank_into_a_directory_a_build_holds_are_refused_naming_it(tmp_path, demo_build):
    build = tmp_path / "build"
    shutil.copytree(demo_build, build)
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text(json.dumps({"problem_id": "demo-basics/x", "model": "m", "passed": True}) + "\n")
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join(_lines(_rows(1))))
    with hold_out_lock(build):
        holder = f"(pid {os.getpid()}: "
        line = _one_line_error(_cli("export", str(build), "--format", "jsonl", "--out", str(tmp_path / "x")))
        assert f"{build} is being built by another process {holder}" in line
        line = _one_line_error(_cli("export", str(demo_build), "--format", "jsonl", "--out", str(build / "x")))
        assert f"{build} is being written by another process {holder}" in line and "an export there" in line
        line = _one_line_error(_cli("verify", str(src), "--out", str(build / "v.jsonl")))
        assert f"{build} is being written by another process {holder}" in line and "a verify writing" in line
        line = _one_line_error(_cli("rank", str(build), "--rollouts", str(rollouts)))
        assert f"{build} is being written by another process {holder}" in line and "codemix rank" in line
        line = _one_line_error(_cli("build", "--out", str(build)))
        assert "a second build there is refused" in line
    assert not (build / "v.jsonl").exists() and not (tmp_path / "x").exists()
    assert json.loads((build / "manifest.json").read_text()) == json.loads((demo_build / "manifest.json").read_text())


# -- 2, 3, 4: bytes that are not UTF-8, a truncated .jsonl.gz, a byte-order mark ------------------


def test_a_byte_that_is_not_utf8_costs_its_row_in_build_and_verify(tmp_path):
    """Issue 57.2: one such byte in one statement was a 69-line UnicodeDecodeError traceback."""
    lines = _lines(_rows())
    bad = bytearray(lines[1])
    at = bad.index(b'"statement": "') + len(b'"statement": "')
    bad[at:at] = b"\xff"
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join([lines[0], bytes(bad), *lines[2:]]))
    r = _build(src, tmp_path / "out")
    assert r.exit_code == 0 and "5 kept, 1 rejected" in r.output, r.output
    (row,) = _rejected(tmp_path / "out")
    assert row["reject_reason"] == "malformed:encoding" and row["source"] == "demo-contest"
    assert row["detail"]["file"] == str(src) and row["detail"]["line"] == 2
    assert row["detail"]["error"] == (
        f"{src}:2: not UTF-8 (byte 0xff at byte {at + 1} of the line); the file must be UTF-8"
    )
    v = _cli("verify", str(src), "--out", str(tmp_path / "v.jsonl"), "--limit", "3", "--no-incorrect")
    assert v.exit_code == 0 and f"skipped a malformed row: encoding: {src}:2: not UTF-8" in v.output, v.output


def test_a_truncated_jsonl_gz_keeps_its_whole_rows_and_rejects_the_rest_with_file_and_reason(tmp_path):
    """Issue 57.3: a partial download printed only `Aborted!`, exit 1, and left `.work`."""
    whole = gzip.compress(b"".join(_lines(_rows())))
    src = tmp_path / "rows.jsonl.gz"
    src.write_bytes(whole[: len(whole) * 2 // 3])
    r = _build(src, tmp_path / "out")
    assert r.exit_code == 0, r.output
    kept = read_table(tmp_path / "out").num_rows
    (row,) = _rejected(tmp_path / "out")
    assert 0 < kept < 6 and row["reject_reason"] == "malformed:archive"
    assert row["detail"]["error"] == (
        f"{src}: the compressed data is cut short or corrupt after line {kept} (Compressed file ended before "
        "the end-of-stream marker was reached); the rest of the file is lost: download it again"
    )
    v = _cli("verify", str(src), "--out", str(tmp_path / "v.jsonl"), "--limit", "2", "--no-incorrect")
    assert v.exit_code == 0, v.output


def test_a_utf8_byte_order_mark_costs_no_row(tmp_path):
    """Issue 57.4: a BOM cost the first row (`malformed:json`, "Unexpected UTF-8 BOM"), silently."""
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"\xef\xbb\xbf" + b"".join(_lines(_rows())))
    r = _build(src, tmp_path / "out")
    assert r.exit_code == 0 and "6 kept, 0 rejected" in r.output, r.output


# -- 5. no clock in a test ------------------------------------------------------------------------


def test_no_test_bounds_a_duration():
    """Issue 57.5: at a load of 7-20 three verdicts that were right failed on their clocks (Ctrl-C
    in 2.30 s against 2.0, 457.7 CPU-ms against 500). How fast is benchmarks/' business."""
    import re

    bound = re.compile(
        r"assert[^\n]*(\btook\b|monotonic\(\)|perf_counter\(\)|process_time\(\)|\bcpu_ms\b|\bwall_ms\b)[^\n]*[<>]"
    )
    found = []
    for path in sorted(Path(__file__).resolve().parents[1].rglob("test_*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if bound.search(line):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert found == []


# -- 6. a record's size ---------------------------------------------------------------------------


def test_a_record_over_the_size_limit_is_rejected_with_its_size(tmp_path):
    """Issue 57.6: a 50 MB record took 13 minutes and 760 MB, with no limit and no warning. The
    default limit (16 MiB) rejects a 17 MiB statement; `--max-record-bytes` sets another."""
    big = {**_rows(1)[0], "id": "big", "statement": "x" * (17 << 20)}
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join(_lines([*_rows(2), big])))
    r = _build(src, tmp_path / "out")
    assert r.exit_code == 0 and "2 kept, 1 rejected" in r.output, r.output
    (row,) = _rejected(tmp_path / "out")
    size = len(big["statement"]) + sum(len(s.encode()) for s in [*big["solutions"], *big["incorrect_solutions"]])
    assert row["problem_id"] == "demo-contest/big" and row["reject_reason"] == "too_large"
    assert row["detail"]["limit"] == 16 << 20 and row["detail"]["bytes"] >= size
    assert row["detail"]["error"].startswith(f"the record is {row['detail']['bytes']:,} bytes, over the limit of 16,777,216")
    r = _build(src, tmp_path / "small", "--max-record-bytes", "10000")
    assert r.exit_code == 0, r.output
    assert {x["reject_reason"] for x in _rejected(tmp_path / "small")} == {"too_large"}
    manifest = json.loads((tmp_path / "small" / "manifest.json").read_text())
    assert manifest["config"]["max_record_bytes"] == 10000
    assert "--max-record-bytes must be at least 1, got 0" in _one_line_error(_build(src, tmp_path / "z", "--max-record-bytes", "0"))


# -- 7. OSErrors and bad paths --------------------------------------------------------------------


def test_bad_paths_are_one_line_with_the_path_and_the_fix(tmp_path, demo_build):
    """Issue 57.7: each of these was a traceback (NotADirectoryError, OSError 30, IsADirectoryError,
    JSONDecodeError). /proc takes no new directory, root or not."""
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join(_lines(_rows(2))))
    line = _one_line_error(_build(src, src))
    assert line == f"error: --out {src} is a file, not a directory; choose a new or empty directory for the build"
    line = _one_line_error(_build(src, Path("/proc/codemix-out")))
    assert line.startswith("error: --out /proc/codemix-out: cannot create the directory (")
    assert line.endswith("choose a --out in a directory you can write to")
    line = _one_line_error(_build(src, src / "out"))
    assert line.startswith(f"error: --out {src / 'out'}: cannot create the directory (")
    line = _one_line_error(_cli("verify", str(src), "--out", str(tmp_path)))
    assert line == f"error: --out {tmp_path} is a directory; pass a file path for the results, e.g. --out {tmp_path / 'verify.jsonl'}"
    line = _one_line_error(_cli("verify", str(src), "--out", "/proc/codemix-verify.jsonl"))
    assert line.startswith("error: /proc/codemix-verify.jsonl: ")
    line = _one_line_error(_cli("export", str(demo_build), "--format", "jsonl", "--out", "/proc/codemix-export"))
    assert line.startswith("error: --out /proc/codemix-export: ") and "choose a --out you can write to" in line
    damaged = tmp_path / "damaged"
    shutil.copytree(demo_build, damaged)
    (damaged / "manifest.json").write_text("{not json\n")
    line = _one_line_error(_cli("info", str(damaged)))
    assert line == (
        f"error: {damaged / 'manifest.json'} is damaged: not valid JSON (Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1)); rebuild with the build's own command and --force"
    )


# -- 8. verify --out never replaces a file verify did not write -----------------------------------


def test_verify_out_refuses_a_file_it_did_not_write_and_replaces_its_own(tmp_path, demo_build):
    build = tmp_path / "build"
    shutil.copytree(demo_build, build)
    before = (build / "manifest.json").read_bytes()
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join(_lines(_rows(1))))
    line = _one_line_error(_cli("verify", str(src), "--out", str(build / "manifest.json")))
    assert line == (
        f"error: --out {build / 'manifest.json'} exists and is not the output of `codemix verify`; codemix "
        "never replaces what it did not write: choose another --out file (or move that one away)"
    )
    assert (build / "manifest.json").read_bytes() == before
    out = tmp_path / "v.jsonl"
    for _ in range(2):  # the second run replaces the first's results
        assert _cli("verify", str(src), "--out", str(out), "--no-incorrect").exit_code == 0
    assert [json.loads(x)["verdict"] for x in out.read_text().splitlines()] == ["AC"] * len(_rows(1)[0]["solutions"])


# -- 9. the smaller ones --------------------------------------------------------------------------


def test_split_twice_is_refused(tmp_path, demo_build):
    r = _cli("export", str(demo_build), "--format", "jsonl", "--out", str(tmp_path / "x"),
             "--split", "test=0.1", "--split", "valid=0.1")  # fmt: skip
    assert _one_line_error(r) == (
        "error: --split is given 2 times (test=0.1, valid=0.1); pass it once: one held-out share per export"
    )
    assert not (tmp_path / "x").exists()


def test_a_malformed_rows_problem_id_never_equals_a_real_one(tmp_path):
    """A malformed row was `SOURCE/<row index>`: row 1 of a file whose real ids are numbers."""
    rows = [{**r, "id": str(i)} for i, r in enumerate(_rows(3))]
    lines = _lines(rows)
    src = tmp_path / "rows.jsonl"
    src.write_bytes(lines[0] + b'{"id": \n' + lines[1] + lines[2])
    r = _build(src, tmp_path / "out")
    assert r.exit_code == 0, r.output
    kept = read_table(tmp_path / "out").column("problem_id").to_pylist()
    (row,) = _rejected(tmp_path / "out")
    assert sorted(kept) == ["demo-contest/0", "demo-contest/1", "demo-contest/2"]
    assert row["problem_id"] == "demo-contest#row-1" and row["id"] is None and row["detail"]["row"] == 1


def test_a_json_error_is_whole(tmp_path):
    """The error text was cut: "Invalid control character at"."""
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join(_lines(_rows(2))) + b'{"id": "a\x01b"}\n')
    assert _build(src, tmp_path / "out").exit_code == 0
    (row,) = _rejected(tmp_path / "out")
    assert row["detail"]["error"] == f"{src}:3: not valid JSON (Invalid control character at: line 1 column 10 (char 9))"


def test_a_suggested_command_quotes_a_path_with_a_space_and_info_keeps_environments_short(tmp_path):
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join(_lines(_rows(2))))
    out = tmp_path / "my builds" / "out"
    r = _build(src, out)
    assert r.exit_code == 0 and f"see `codemix info '{out}'`" in r.output, r.output
    info = _cli("info", str(out))
    assert info.exit_code == 0 and "{" not in info.output, info.output


# -- fifteen more kinds of bad input (docs/pipeline.md, "Bad input") ------------------------------


def test_files_that_cannot_be_read_at_all_are_one_line(tmp_path):
    rows = b"".join(_lines(_rows(2)))
    cases = {
        "utf16.jsonl": (rows.decode().encode("utf-16"), "UTF-16 text (it starts with a UTF-16 byte-order mark); "
                        "codemix reads UTF-8: convert it, e.g. iconv -f UTF-16 -t UTF-8"),
        "plain.jsonl.gz": (rows, "cannot be read as gzip (Not a gzipped file (b'{\"')); is it a whole .gz file? "
                           "download it again, or decompress it and pass the plain file"),
        "broken.parquet": (b"PAR1 not parquet", "not a readable Parquet file ("),
        "broken.arrow": (b"ARROW1 not arrow", "not a readable Arrow file ("),
    }  # fmt: skip
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        line = _one_line_error(_build(tmp_path / name, tmp_path / f"out-{name}"))
        assert line.startswith(f"error: {tmp_path / name}: {message}"), line
        assert not (tmp_path / f"out-{name}").exists()  # a start that finished nothing leaves nothing


def test_rows_json_cannot_hold_are_one_rejected_row_each(tmp_path):
    """An integer of 5001 digits, nesting 100,000 deep, an array and a string where an object
    belongs, a statement that is a number, a statement with a lone surrogate (`\\ud800`, which
    was an Arrow UnicodeEncodeError traceback): each costs its own row."""
    good = _lines(_rows(2))
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join([
        good[0], b'{"id": 1' + b"1" * 5000 + b"}\n", b"[" * 100_000 + b"]" * 100_000 + b"\n", b"[1, 2]\n",
        b'"a string"\n', json.dumps({**_rows(1)[0], "id": "n", "statement": 5}).encode() + b"\n",
        json.dumps({**_rows(1)[0], "id": "s", "statement": "odd \ud800 text"}).encode() + b"\n", good[1],
    ]))  # fmt: skip
    r = _build(src, tmp_path / "out")
    assert r.exit_code == 0, r.output
    errors = {x["detail"]["error"]: x["reject_reason"] for x in _rejected(tmp_path / "out")}
    assert errors == {
        f"{src}:2: not readable JSON (Exceeds the limit (4300 digits) for integer string conversion: value has "
        "5001 digits; use sys.set_int_max_str_digits() to increase the limit)": "malformed:json",
        f"{src}:3: not readable JSON (nested too deeply)": "malformed:json",
        "expected an object, got list": "malformed:<row>",
        "expected an object, got str": "malformed:<row>",
        "is required and must be a string": "malformed:statement",
        "holds a lone surrogate (\\ud800 at character 5), which is not text; the text must be UTF-8": "malformed:statement",
    }


def test_a_json_array_file_with_a_bad_byte_costs_the_row_that_holds_it(tmp_path):
    rows = _rows(3)
    text = json.dumps(rows).encode()
    at = text.index(b'"statement": "', text.index(rows[1]["id"].encode())) + len(b'"statement": "')
    src = tmp_path / "rows.json"
    src.write_bytes(text[:at] + b"\xfe" + text[at:])
    r = _build(src, tmp_path / "out")
    assert r.exit_code == 0 and "2 kept, 1 rejected" in r.output, r.output
    (row,) = _rejected(tmp_path / "out")
    assert row["problem_id"] == f"demo-contest/{rows[1]['id']}" and row["reject_reason"] == "malformed:statement"
    assert row["detail"]["error"] == "not UTF-8 (byte 0xfe at character 1); the text must be UTF-8"


def test_bad_solutions_rollouts_and_completions_files_are_one_line(tmp_path, demo_build):
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"".join(_lines(_rows(1))))
    sols = tmp_path / "sols.jsonl"
    sols.write_bytes(b'{"id": "x", "solution": "print(1)"}\n{"id": "y", "solution": "\xff"}\n')
    line = _one_line_error(_cli("verify", str(src), "--out", str(tmp_path / "v.jsonl"), "--solutions", str(sols)))
    assert line.startswith(f"error: {sols}:2: not UTF-8 (byte 0xff")
    line = _one_line_error(_cli("verify", str(src), "--out", str(tmp_path / "v.jsonl"), "--solutions", str(tmp_path)))
    assert line == f"error: --solutions {tmp_path} is a directory; pass a JSONL file of {{id, solution}} lines"
    build = tmp_path / "build"
    shutil.copytree(demo_build, build)
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_bytes(b'{"problem_id": "a", "model": "m", "passed": 1' + b"0" * 5000 + b"}\n")
    line = _one_line_error(_cli("rank", str(build), "--rollouts", str(rollouts)))
    assert line.startswith(f"error: {rollouts}:1: not readable JSON (Exceeds the limit (4300 digits)")
    rollouts.write_bytes(b'{"problem_id": "\xc3", "model": "m", "passed": true}\n')
    assert _one_line_error(_cli("rank", str(build), "--rollouts", str(rollouts))).startswith(
        f"error: {rollouts}:1: not UTF-8 (byte 0xc3"
    )
    completions = tmp_path / "completions.jsonl.gz"
    whole = gzip.compress(b"".join(b'{"problem_id": "p%d", "completion": "x"}\n' % i for i in range(2000)))
    completions.write_bytes(whole[: len(whole) // 2])
    line = _one_line_error(_cli("rollouts", str(build), "--completions", str(completions), "--model", "m",
                                "--out", str(tmp_path / "r.jsonl")))  # fmt: skip
    assert line.startswith(f"error: {completions}: the compressed data is cut short or corrupt after line ")


def test_manifests_that_are_not_a_builds_are_one_line(tmp_path, demo_build):
    damaged = tmp_path / "damaged"
    shutil.copytree(demo_build, damaged)
    (damaged / "manifest.json").write_text("[]\n")
    assert _one_line_error(_cli("info", str(damaged))) == (
        f"error: {damaged / 'manifest.json'} is damaged: not a codemix manifest (a JSON list, not an object); "
        "rebuild with the build's own command and --force"
    )
    (damaged / "manifest.json").write_text("{}\n")
    assert _one_line_error(_cli("info", str(damaged))) == (
        f"error: {damaged / 'manifest.json'} is damaged: not a codemix manifest (no counts); rebuild with the "
        "build's own command and --force"
    )
    (damaged / "manifest.json").unlink()
    (damaged / "manifest.json").mkdir()
    line = _one_line_error(_cli("info", str(damaged)))
    assert line.startswith(f"error: {damaged / 'manifest.json'} is a directory, not a build's manifest")


@pytest.mark.parametrize("errno_name", ["EACCES", "EROFS", "ENOSPC"])
def test_an_os_error_is_one_line_with_the_path_and_the_fix(errno_name):
    """What every command prints for an OSError no check above caught (a disk that fills up
    mid-build, a directory made read-only while the build runs)."""
    import errno

    from curation.commands import os_error_line

    e = OSError(getattr(errno, errno_name), os.strerror(getattr(errno, errno_name)), "/data/out/x.parquet")
    line = os_error_line(e)
    assert line.startswith(f"/data/out/x.parquet: {os.strerror(e.errno)}; ") and "\n" not in line
