"""Where a build's files live: a local directory or object storage (`s3://`, `gs://`, `hdfs://`, ...).

`Loc` is the few operations of `pathlib.Path` that a build uses (join, list, read, write, remove),
over pyarrow's filesystem layer. A local path keeps `pathlib`'s own operations (an atomic write is
a temporary file renamed over the target, fsynced first), so a local build writes exactly what it
wrote before. On object storage there is no rename: one object's write (a PUT, or a multipart
upload completed at close) is atomic by itself, so a file is written in place, and the order of
writes is what makes a build resumable there too (a unit's marker after its rows, the manifest
last).

Credentials and endpoints come from the filesystem's usual configuration: for S3 the
`AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_DEFAULT_REGION` variables, and
`AWS_ENDPOINT_URL` for an S3-compatible store (MinIO, Ceph); query parameters of the URI
(`s3://bucket/out?endpoint_override=host:9000&scheme=http`) as pyarrow reads them.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from functools import total_ordering
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

__all__ = ["Loc", "is_uri", "as_loc", "absolute", "filesystem", "local_build"]

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_uri(path: str | os.PathLike[str] | Loc) -> bool:
    """True for `scheme://...` (object storage or another pyarrow filesystem), not for a local path."""
    if isinstance(path, Loc):
        return not path.local
    return isinstance(path, str) and bool(_URI.match(path)) and not path.startswith("file://")


def _endpoint_from_env(uri: str) -> str:
    """An S3 URI with the endpoint of `AWS_ENDPOINT_URL(_S3)` added, when the variable is set and
    the URI names none (pyarrow's S3 layer does not read the variable itself in every version)."""
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if not endpoint or not uri.startswith("s3://") or "endpoint_override=" in uri:
        return uri
    parts = urlsplit(endpoint)
    host = parts.netloc or parts.path
    query = f"endpoint_override={host}&scheme={parts.scheme or 'https'}"
    return uri + ("&" if "?" in uri else "?") + query


def filesystem(uri: str) -> tuple[pafs.FileSystem, str]:
    """The filesystem a URI names and the path inside it (no trailing slash)."""
    try:
        fs, path = pafs.FileSystem.from_uri(_endpoint_from_env(uri))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as e:
        from filters.contracts import UserError

        raise UserError(f"{uri}: not a storage location pyarrow can open ({e})") from None
    return fs, path.rstrip("/")


@total_ordering
class Loc:
    """A file or directory on a local disk or in object storage (see the module's docstring)."""

    __slots__ = ("fs", "path", "uri", "local")

    def __init__(self, fs: pafs.FileSystem | None, path: str, uri: str) -> None:
        self.fs = fs  # None: the local disk, through pathlib
        self.path = path
        self.uri = uri  # how it is shown (and rebuilt after pickling)
        self.local = fs is None

    # -- making --------------------------------------------------------------------------------
    @classmethod
    def of(cls, where: str | os.PathLike[str] | Loc) -> Loc:
        if isinstance(where, Loc):
            return where
        text = os.fspath(where)
        if text.startswith("file://"):
            text = text[len("file://") :]
        if not is_uri(text):
            return cls(None, text, text)
        fs, path = filesystem(text)
        return cls(fs, path, text.split("?", 1)[0].rstrip("/"))

    def __reduce__(self) -> tuple[Any, ...]:
        # a task rebuilds the filesystem from the URI (credentials from its own environment)
        if self.local:
            return (Loc, (None, self.path, self.uri))
        return (_remote, (self.fs, self.path, self.uri))

    def __truediv__(self, name: str) -> Loc:
        if self.local:
            joined = str(Path(self.path) / name)
            return Loc(None, joined, joined)
        return Loc(self.fs, f"{self.path}/{name}", f"{self.uri}/{name}")

    # -- names -------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1] if not self.local else Path(self.path).name

    @property
    def stem(self) -> str:
        name = self.name
        return name.rsplit(".", 1)[0] if "." in name[1:] else name

    @property
    def parent(self) -> Loc:
        if self.local:
            p = str(Path(self.path).parent)
            return Loc(None, p, p)
        return Loc(self.fs, self.path.rsplit("/", 1)[0], self.uri.rsplit("/", 1)[0])

    def with_name(self, name: str) -> Loc:
        return self.parent / name

    def __str__(self) -> str:
        return self.uri

    def __repr__(self) -> str:
        return f"Loc({self.uri!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Loc) and (self.local, self.path) == (other.local, other.path)

    def __lt__(self, other: Loc) -> bool:
        return self.path < other.path

    def __hash__(self) -> int:
        return hash((self.local, self.path))

    def as_path(self) -> Path:
        """The local path (a UserError-free AssertionError for object storage: callers check `local`)."""
        assert self.local, f"{self.uri} is not on the local disk"
        return Path(self.path)

    # -- asking --------------------------------------------------------------------------------
    def _info(self) -> pafs.FileInfo:
        assert self.fs is not None
        return self.fs.get_file_info(self.path)

    def exists(self) -> bool:
        if self.local:
            return Path(self.path).exists()
        return self._info().type != pafs.FileType.NotFound

    def is_dir(self) -> bool:
        if self.local:
            return Path(self.path).is_dir()
        return self._info().type == pafs.FileType.Directory

    def is_file(self) -> bool:
        if self.local:
            return Path(self.path).is_file()
        return self._info().type == pafs.FileType.File

    def iterdir(self) -> Iterator[Loc]:
        if self.local:
            for p in Path(self.path).iterdir():
                yield Loc(None, str(p), str(p))
            return
        assert self.fs is not None
        sel = pafs.FileSelector(self.path, recursive=False, allow_not_found=True)
        for info in self.fs.get_file_info(sel):
            yield Loc(self.fs, info.path, f"{self.uri}/{info.base_name}")

    def glob(self, pattern: str) -> Iterator[Loc]:
        """Entries matching `pattern`, a `/`-separated pattern of `fnmatch` names (no `**`)."""
        if self.local:
            for p in Path(self.path).glob(pattern):
                yield Loc(None, str(p), str(p))
            return
        first, _, rest = pattern.partition("/")
        for child in self.iterdir():
            if fnmatch.fnmatchcase(child.name, first):
                if rest:
                    yield from child.glob(rest)
                else:
                    yield child

    # -- reading -------------------------------------------------------------------------------
    def read_bytes(self) -> bytes:
        if self.local:
            return Path(self.path).read_bytes()
        assert self.fs is not None
        with self.fs.open_input_stream(self.path) as f:
            return f.read()

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.read_bytes().decode(encoding)

    def read_table(self, columns: list[str] | None = None) -> pa.Table:
        if self.local:
            return pq.read_table(self.path, columns=columns)
        return pq.read_table(self.path, columns=columns, filesystem=self.fs)

    def parquet_file(self) -> pq.ParquetFile:
        if self.local:
            return pq.ParquetFile(self.path)
        assert self.fs is not None
        return pq.ParquetFile(self.fs.open_input_file(self.path))

    def open_input(self) -> Any:
        if self.local:
            return open(self.path, "rb")
        assert self.fs is not None
        return self.fs.open_input_stream(self.path)

    # -- writing -------------------------------------------------------------------------------
    def mkdir(self, parents: bool = True, exist_ok: bool = True) -> None:
        if self.local:
            Path(self.path).mkdir(parents=parents, exist_ok=exist_ok)
            return
        assert self.fs is not None
        self.fs.create_dir(self.path, recursive=True)

    def write_bytes_atomic(self, data: bytes) -> None:
        """Readers see the old content or all of the new (a local temporary file renamed over it,
        fsynced first; one object's write on object storage)."""
        if self.local:
            path = Path(self.path)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            tmp.replace(path)
            return
        assert self.fs is not None
        with self.fs.open_output_stream(self.path) as f:
            f.write(data)

    def write_table_atomic(self, table: pa.Table, **options: Any) -> None:
        """A Parquet file written whole or not at all (`write_bytes_atomic`'s rule)."""
        if self.local:
            path = Path(self.path)
            tmp = path.with_name(path.name + ".tmp")
            pq.write_table(table, tmp, **options)
            tmp.replace(path)
            return
        pq.write_table(table, self.path, filesystem=self.fs, **options)

    def write_table(self, table: pa.Table, **options: Any) -> None:
        if self.local:
            pq.write_table(table, self.path, **options)
        else:
            pq.write_table(table, self.path, filesystem=self.fs, **options)

    def unlink(self, missing_ok: bool = False) -> None:
        if self.local:
            Path(self.path).unlink(missing_ok=missing_ok)
            return
        assert self.fs is not None
        try:
            self.fs.delete_file(self.path)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rmtree(self) -> None:
        """Remove a directory and everything under it; nothing when it is not there."""
        if self.local:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        assert self.fs is not None
        try:
            self.fs.delete_dir(self.path)
        except (FileNotFoundError, OSError):
            if self.is_dir():
                raise

    def upload(self, local_dir: Path) -> None:
        """Copy a local directory's files under this one (a report drawn locally)."""
        for p in sorted(local_dir.rglob("*")):
            if p.is_file():
                (self / p.relative_to(local_dir).as_posix()).write_bytes_atomic(p.read_bytes())

    def download(self, local: Path) -> Path:
        """This file, or this directory's files, copied to `local` (returned)."""
        if self.is_file():
            local.mkdir(parents=True, exist_ok=True)
            target = local / self.name
            target.write_bytes(self.read_bytes())
            return target
        assert self.fs is not None
        sel = pafs.FileSelector(self.path, recursive=True)
        for info in self.fs.get_file_info(sel):
            if info.type == pafs.FileType.File:
                target = local / info.path[len(self.path) :].lstrip("/")
                target.parent.mkdir(parents=True, exist_ok=True)
                with self.fs.open_input_stream(info.path) as f:
                    target.write_bytes(f.read())
        return local


def _remote(fs: pafs.FileSystem, path: str, uri: str) -> Loc:
    return Loc(fs, path, uri)


def as_loc(where: str | os.PathLike[str] | Loc) -> Loc:
    """`where` as a `Loc`: a local path (relative ones made absolute) or a URI."""
    loc = Loc.of(where)
    return Loc.of(os.path.abspath(loc.path)) if loc.local else loc


def absolute(where: str | os.PathLike[str]) -> str:
    """A path made absolute (a task on another node resolves no relative path), a URI as it is."""
    text = os.fspath(where)
    return text if is_uri(text) else os.path.abspath(text)


@contextlib.contextmanager
def local_build(where: str | os.PathLike[str]) -> Iterator[Path]:
    """A finished build as a local directory, for the commands that read one (`info`, `export`,
    `rank`): a local path as it is; on object storage a temporary copy of the build's files
    (manifest, shards, report; not an unfinished build's `.work`), removed after the block."""
    if not is_uri(os.fspath(where)):
        yield Path(where)
        return
    loc = Loc.of(where)
    with tempfile.TemporaryDirectory(prefix="codemix-build-") as tmp:
        local = Path(tmp) / (loc.name or "build")
        local.mkdir()
        for name in ("manifest.json", "problems", "rejected", "report"):
            p = loc / name
            if p.is_file():
                p.download(local)
            elif p.is_dir():
                p.download(local / name)
        yield local

