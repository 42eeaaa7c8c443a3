"""One writer per output prefix on S3: a build (or `codemix rank`) holds `OUT/.codemix.lock`.

Object storage has no `flock`. What S3 offers instead is a conditional write: `PutObject` with
`If-None-Match: *` creates an object only when none exists under the key (AWS S3 since August
2024, MinIO, moto), and `If-Match: ETAG` replaces it only when it is still the version the
writer last saw. The lock is built on these two:

- **Taking it**: the lock object is created with `If-None-Match: *`, holding the writer's host,
  pid and command. When it exists already, the writer is refused with one line naming the holder.
- **Held while the build runs**: the holder rewrites the object every `REFRESH_S` seconds with
  `If-Match` on its own last ETag. A build killed with `kill -9` (or whose node is lost) stops
  refreshing; a lock object older than `LEASE_S`, by the store's own clock (the object's
  `Last-Modified` against the `Date` of the store's answer, so no two machines' clocks are
  compared), is a dead build's, and the next writer takes it over with `If-Match` on the stale
  ETag: of two writers racing for a stale lock, one gets it.
- **Given back**: the object is deleted when the build ends, however it ends in Python.

This needs `boto3` (pyarrow's S3 filesystem, which writes the build, has no conditional write).
Without boto3, and on other object stores (`gs://`, `abfs://`, ...), the prefix is not locked and
the build says so in one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime

from curation.outlock import LOCK_FILE, _command
from curation.storage import Loc
from filters.contracts import UserError

__all__ = ["hold_object_lock", "object_lock_holder", "LEASE_S", "REFRESH_S"]

#: seconds without a refresh after which a lock object is a dead build's
LEASE_S = 120.0
#: seconds between two refreshes of a held lock
REFRESH_S = 20.0


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class _S3Key:
    """The S3 client, bucket and key of a prefix's lock object."""

    def __init__(self, out: Loc) -> None:
        import boto3  # (checked by the caller)

        self.bucket, _, prefix = out.path.partition("/")
        self.key = f"{prefix}/{LOCK_FILE}" if prefix else LOCK_FILE
        # the endpoint as the build's filesystem has it (`AWS_ENDPOINT_URL(_S3)`, else AWS)
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        self.client = boto3.client("s3", **({"endpoint_url": endpoint} if endpoint else {}))

    def put(self, body: bytes, **condition: str) -> str:
        """Write the lock object under a condition; its new ETag. `_Taken` when the condition fails."""
        from botocore.exceptions import ClientError

        try:
            r = self.client.put_object(Bucket=self.bucket, Key=self.key, Body=body, **condition)
        except ClientError as e:
            code = e.response.get("Error", {}).get("Code", "")
            status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if code in ("PreconditionFailed", "ConditionalRequestConflict") or status in (409, 412):
                raise _Taken from None
            raise
        return str(r["ETag"])

    def get(self) -> tuple[bytes, str, float] | None:
        """(body, ETag, age in seconds by the store's clock), or None when there is no lock object."""
        from botocore.exceptions import ClientError

        try:
            r = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except ClientError as e:
            if e.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        body = r["Body"].read()
        date = r.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
        now = parsedate_to_datetime(date) if date else None
        age = (now - r["LastModified"]).total_seconds() if now is not None else 0.0
        return body, str(r["ETag"]), age

    def delete_if(self, etag: str) -> None:
        got = self.get()
        if got is not None and got[1] == etag:
            self.client.delete_object(Bucket=self.bucket, Key=self.key)


class _Taken(Exception):
    """A conditional write found the lock object not as it expected."""


def _describe(body: bytes) -> str:
    try:
        d = json.loads(body)
        return f"pid {d.get('pid', '?')} on {d.get('host', '?')}: {d.get('command', 'command unknown')}"
    except ValueError:
        return "holder unknown"


def _ours(body: bytes) -> bool:
    try:
        d = json.loads(body)
    except ValueError:
        return False
    return isinstance(d, dict) and {"pid", "host", "command"} <= d.keys()


def _busy(out: Loc, holder: str, doing: str) -> UserError:
    return UserError(
        f"{out} is being written by another process ({holder}); {doing}: wait for it to finish, "
        "or choose another --out"
    )


def _lockable(out: Loc, say: Callable[[str], None]) -> bool:
    if not out.uri.startswith("s3://"):
        say(f"warning: {out} is not locked against a second build at the same time (only a local "
            "directory and s3:// are); run one build per prefix")  # fmt: skip
        return False
    try:
        import boto3  # noqa: F401
    except ImportError:
        say(f"warning: {out} is not locked against a second build at the same time: the lock on "
            "S3 needs boto3 (pip install boto3); run one build per prefix")  # fmt: skip
        return False
    return True


def object_lock_holder(out: Loc, lease_s: float = LEASE_S) -> str | None:
    """Who holds the lock of `out` (an s3:// prefix) now, or None (no lock, or a stale one)."""
    if not out.uri.startswith("s3://"):
        return None
    try:
        key = _S3Key(out)
    except ImportError:
        return None
    got = key.get()
    if got is None or got[2] > lease_s:
        return None
    return _describe(got[0])


def _acquire(key: _S3Key, body: bytes, out: Loc, doing: str, lease_s: float, say: Callable[[str], None]) -> str:
    """Create the lock object (or take over a stale one of a build that stopped): its ETag; or
    raise a UserError naming the holder."""
    etag: str | None = None
    for _ in range(5):
        try:
            etag = key.put(body, IfNoneMatch="*")
            break
        except _Taken:
            got = key.get()
            if got is None:  # given back meanwhile: try again
                continue
            held, stale_etag, age = got
            if not _ours(held):  # a file of the user's under that name: never overwritten
                raise UserError(f"{out / LOCK_FILE} exists and is not a codemix lock; choose another --out") from None
            if age <= lease_s:
                raise _busy(out, _describe(held), doing) from None
            try:  # a dead build's: take it over, unless another writer did first
                etag = key.put(body, IfMatch=stale_etag)
                say(f"warning: took over the lock of {out} from a build that stopped refreshing it "
                    f"{age:.0f} s ago ({_describe(held)})")  # fmt: skip
                break
            except _Taken:
                continue
    if etag is None:
        got = key.get()
        raise _busy(out, _describe(got[0]) if got else "holder unknown", doing)
    return etag


@contextlib.contextmanager
def hold_object_lock(
    out: Loc,
    doing: str = "a second build there is refused",
    *,
    lease_s: float = LEASE_S,
    refresh_s: float = REFRESH_S,
    say: Callable[[str], None] = _say,
) -> Iterator[None]:
    """Hold the lock of `out`, an s3:// prefix, for the `with` block (see the module's docstring),
    or raise a UserError naming the holder. Other stores, or S3 without boto3: a warning, no lock."""
    if not _lockable(out, say):
        yield
        return
    key = _S3Key(out)
    body = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": _command()}).encode()
    etag = _acquire(key, body, out, doing, lease_s, say)
    state = {"etag": etag}
    stop = threading.Event()

    def refresh() -> None:
        while not stop.wait(refresh_s):
            try:
                state["etag"] = key.put(body, IfMatch=state["etag"])
            except _Taken:
                say(f"warning: the lock of {out} was taken over by another writer; this one goes on "
                    "without it")  # fmt: skip
                return
            except Exception as e:  # a store that does not answer now: try again at the next refresh
                say(f"warning: could not refresh the lock of {out} ({type(e).__name__}: {e})")

    t = threading.Thread(target=refresh, name="codemix-s3-lock", daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
        with contextlib.suppress(Exception):
            key.delete_if(state["etag"])
