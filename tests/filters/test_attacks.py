"""Hostile programs: each attack gets the right verdict, leaves nothing running and writes nothing outside."""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import textwrap
import uuid
from pathlib import Path

import pytest

from filters.sandbox import Sandbox

STDIO = {"test_type": "stdio", "tests": [{"input": "", "output": "ok"}]}
SECRET = "cm-secret-" + uuid.uuid4().hex
#: Full isolation (own uid, network and mount namespaces) needs root; without it these are skipped.
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="full isolation needs root")


def _kernel_allows(flags: int) -> bool:
    """Whether this kernel (and container) lets root unshare these namespaces at all."""
    if os.geteuid() != 0:
        return False
    pid = os.fork()
    if pid == 0:
        os._exit(0 if ctypes.CDLL(None, use_errno=True).unshare(flags) == 0 else 1)
    return os.waitpid(pid, 0)[1] == 0


needs_ipc_ns = pytest.mark.skipif(not _kernel_allows(0x08000000), reason="no IPC namespaces here")
needs_pid_ns = pytest.mark.skipif(
    not _kernel_allows(0x20000000 | 0x00020000), reason="no pid namespaces here"
)


@pytest.fixture(scope="module")
def sb():
    os.environ["CODEMIX_TEST_SECRET"] = SECRET
    with Sandbox(
        workers=2, time_limit_s=0.5, memory_limit_mb=256, output_limit_bytes=1 << 20
    ) as box:
        yield box
    os.environ.pop("CODEMIX_TEST_SECRET", None)


def _uid_procs(sb: Sandbox) -> list[str]:
    """Processes still running as any of the sandbox's run uids.

    The worker itself takes a run's uid for a moment after answering (to clear the run's keys),
    keeping saved uid 0 to come back; a process of the run can never hold uid 0 in any slot, so
    only processes with every uid the run's count. (CI once caught the worker mid-clear.)
    """
    uids = {str(w.uid) for w in sb._all}
    left = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            status = (d / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:") and set(line.split()[1:]) <= uids:
                left.append(d.name)
    return left


def run(sb: Sandbox, code: str, problem: dict | None = None, **kw):
    result = sb.run(problem or STDIO, textwrap.dedent(code), **kw)
    if os.geteuid() == 0:  # runs have their own uid only when started as root
        assert _uid_procs(sb) == [], "a process of the run is still alive"
    return result


@needs_root
def test_fork_bomb(sb):
    r = run(
        sb,
        """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """,
    )
    assert r.verdict in ("TLE", "RE")


def test_memory_bomb(sb):
    assert run(sb, "x = bytearray(10**10)\nprint('ok')").verdict == "MLE"
    assert (
        run(sb, "l = []\nwhile True:\n    l.append(bytearray(10**6))", time_limit_s=5).verdict
        == "MLE"
    )


def test_infinite_loop_is_tle_by_cpu(sb):
    r = run(sb, "while True:\n    pass")
    # stopped, by its CPU limit or on a busy machine by the wall ceiling: how soon is
    # benchmarks/'s to measure, not a test's (issue 57)
    assert r.verdict == "TLE"


def test_long_sleep_hits_wall_ceiling(sb):
    r = run(sb, "import time\ntime.sleep(100)\nprint('ok')")
    assert r.verdict == "TLE"  # a sleep uses no CPU: only the wall ceiling stops it (else AC after 100 s)


def test_output_flood(sb):
    assert run(sb, "while True:\n    print('x' * 1000)").verdict == "OLE"
    assert run(sb, "import sys\nwhile True:\n    sys.stderr.write('y' * 1000)").verdict == "OLE"


@needs_root
def test_writing_outside_its_directory(sb, tmp_path):
    marker = f"codemix-attack-{uuid.uuid4().hex}"
    targets = [
        f"/tmp/{marker}",
        f"/var/tmp/{marker}",
        f"/dev/shm/{marker}",
        str(tmp_path / marker),
        str(Path(__file__).with_name(marker)),
    ]
    r = run(
        sb,
        f"""
        import os
        for p in {targets!r}:
            try:
                with open(p, "w") as f:
                    f.write("pwned")
            except OSError:
                pass
        open("local.txt", "w").write("fine")   # its own directory is writable
        print("ok")
    """,
    )
    assert r.verdict == "AC"
    for p in targets:
        assert not os.path.exists(p), p


@needs_root
def test_run_directory_is_fresh_and_private(sb):
    r1 = run(
        sb, "import os\nopen('/tmp/x', 'w').write('1')\nopen('keep', 'w').write('1')\nprint('ok')"
    )
    r2 = run(
        sb,
        "import os\nprint('ok' if not os.path.exists('/tmp/x') and not os.path.exists('keep') else 'leak')",
    )
    assert (r1.verdict, r2.verdict) == ("AC", "AC")


@needs_root
def test_environment_is_scrubbed(sb):
    r = run(
        sb,
        f"""
        import os
        seen = "\\n".join(f"{{k}}={{v}}" for k, v in os.environ.items())
        try:
            seen += open("/proc/{os.getpid()}/environ").read()
        except OSError:
            pass
        print("leak" if {SECRET!r} in seen else "ok")
    """,
    )
    assert r.verdict == "AC", r.first_failure


@needs_root
def test_no_network(sb):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        r = run(
            sb,
            f"""
            import socket
            reached = []
            for addr in [("127.0.0.1", {port}), ("1.1.1.1", 53), ("8.8.8.8", 53)]:
                try:
                    socket.create_connection(addr, timeout=0.3).close()
                    reached.append(addr)
                except OSError:
                    pass
            print("ok" if not reached else f"reached {{reached}}")
        """,
        )
    finally:
        server.close()
    assert r.verdict == "AC", r.first_failure
    assert sb.isolation_report()["network_namespace"] is True or os.geteuid() != 0


@needs_root
def test_cannot_kill_the_parent(sb):
    r = run(
        sb,
        f"""
        import os, signal
        for pid in (os.getppid(), {os.getpid()}, -1, 1):
            for sig in (signal.SIGKILL, signal.SIGTERM):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        print("ok")
    """,
    )
    assert r.verdict == "AC"
    assert all(w.alive() for w in sb._all)
    assert run(sb, "print('ok')").verdict == "AC"


def test_ignoring_sigterm(sb):
    r = run(
        sb, "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass"
    )
    assert r.verdict == "TLE"


@needs_root
def test_orphans_and_daemons_are_killed(sb):
    marker = f"/tmp/codemix-daemon-{uuid.uuid4().hex}"
    r = run(
        sb,
        f"""
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(1.5)
                open({marker!r}, "w").write("alive")
                os._exit(0)
            os._exit(0)
        print("ok")
    """,
    )
    assert r.verdict == "AC"
    assert not os.path.exists(marker)


def test_threads_outliving_main(sb):
    # A non-daemon thread keeps the interpreter alive, as in a real interpreter: TLE.
    r = run(
        sb,
        "import threading, time\nthreading.Thread(target=time.sleep, args=(100,)).start()\nprint('ok')",
    )
    assert r.verdict == "TLE"
    # A daemon thread is abandoned at exit; its late output does not count.
    r = run(
        sb,
        """
        import threading, time, sys
        def spam():
            time.sleep(0.05)
            while True:
                print("late")
        threading.Thread(target=spam, daemon=True).start()
        print("ok")
    """,
    )
    assert r.verdict == "AC"
    # Non-daemon threads are joined and their output flushed, as in a real interpreter.
    r = run(sb, "import threading\nthreading.Thread(target=lambda: print('ok')).start()")
    assert r.verdict == "AC"


def test_closing_or_replacing_stdio(sb):
    assert run(sb, "import os\nos.close(0)\nos.close(1)\nprint('ok')").verdict in ("RE", "WA")
    assert (
        run(sb, "import sys, os\nsys.stdout = open(os.devnull, 'w')\nprint('ok')").verdict == "WA"
    )
    assert (
        run(
            sb, "import os\nfd = os.open(os.devnull, os.O_WRONLY)\nos.dup2(fd, 1)\nprint('ok')"
        ).verdict
        == "WA"
    )
    assert run(sb, "print('ok')").verdict == "AC"


def test_deep_recursion(sb):
    r = run(
        sb,
        "import sys\nsys.setrecursionlimit(10**8)\ndef f(n):\n    return f(n + 1)\nf(0)",
        time_limit_s=3,
        memory_limit_mb=64,
    )
    assert r.verdict in ("RE", "MLE")
    ok = run(
        sb,
        "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\n"
        "print('ok' if f(50000) == 50000 else 'no')",
        time_limit_s=3,
    )
    assert ok.verdict == "AC", ok.first_failure


def test_os_exit(sb):
    assert (
        run(
            sb, "import os, sys\nsys.stdout.write('ok\\n')\nsys.stdout.flush()\nos._exit(0)"
        ).verdict
        == "AC"
    )
    assert run(sb, "import os\nos._exit(3)").verdict == "RE"
    call = {"test_type": "call", "entry_point": "f", "tests": [{"input": "[1]", "output": "1"}]}
    assert run(sb, "import os\ndef f(x):\n    os._exit(0)", call).verdict == "RE"
    asrt = {
        "test_type": "assert",
        "entry_point": "f",
        "test_code": "assert f(1) == 2\nassert f(2) == 3",
    }
    assert run(sb, "import sys\ndef f(x):\n    sys.exit(0)", asrt).verdict == "RE"


def test_segfault_through_ctypes(sb):
    r = run(sb, "import ctypes\nctypes.string_at(0)")
    assert r.verdict == "RE"
    assert "SIGSEGV" in (r.first_failure or {}).get("exit", "")


def test_no_fd_or_process_leak_in_parent(sb):
    def fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = fds()
    children_before = len(
        Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
    )
    sb.run_many([(STDIO, "print('ok')")] * 100 + [(STDIO, "import os\nos._exit(1)")] * 20)
    assert fds() == before
    after = len(Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split())
    assert after == children_before


@needs_root
def test_private_home_hides_the_parents_files(sb):
    import sys

    home = os.path.expanduser("~")
    runtime = os.path.realpath(sys.base_prefix)
    # Everything in the home directory except the path to the interpreter's own library.
    private = [p for p in os.listdir(home) if not runtime.startswith(os.path.join(home, p))][:30]
    r = run(
        sb,
        f"""
        import os
        seen = [p for p in {private!r} if os.path.exists(os.path.join({home!r}, p))]
        print("ok" if not seen else f"visible: {{seen}}")
    """,
    )
    assert r.verdict == "AC", r.first_failure


@contextlib.contextmanager
def planted_host_files():
    """A world-readable data directory at /, a stray file at /, and a unix socket listening inside."""
    tag = uuid.uuid4().hex[:8]
    data = Path(f"/cm-data-{tag}")
    data.mkdir(mode=0o755)
    stray = Path(f"/cm-stray-{tag}")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        (data / "train.jsonl").write_text(SECRET)
        (data / "train.jsonl").chmod(0o644)
        stray.write_text(SECRET)
        stray.chmod(0o644)
        srv.bind(str(data / "sock"))
        os.chmod(data / "sock", 0o777)
        srv.listen(1)
        yield data, stray
    finally:
        srv.close()
        stray.unlink(missing_ok=True)
        for p in data.iterdir():
            p.unlink()
        data.rmdir()


READ_HOST = """
    import socket
    found = []
    for p in {paths!r}:
        try:
            found.append((p, open(p).read(64)))
        except OSError:
            pass
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect({sock!r})
        found.append(("socket", "connected"))
    except OSError:
        pass
    print("ok" if not any({secret!r} in str(f) or f[0] == "socket" for f in found) else f"read: {{found}}")
"""


@needs_root
def test_host_files_outside_system_dirs_are_hidden():
    """A dataset on disk is the answer key: the program must not read it, nor reach host sockets.

    Bug: only directories the run's user could not enter were hidden, so a program could open a
    world-readable training file (e.g. ../shared/data/*.jsonl.gz) and print the expected output.
    """
    repo = Path(__file__).resolve().parents[2]
    with planted_host_files() as (data, stray), Sandbox(workers=1) as box:
        paths = [str(data / "train.jsonl"), str(stray), str(repo / "README.md"), __file__]
        assert box.isolation_report()["host_files"].startswith("hidden")
        code = READ_HOST.format(paths=paths, sock=str(data / "sock"), secret=SECRET)
        r = run(box, code)
        assert r.verdict == "AC", r.first_failure
        # the interpreter's library stays readable: numpy imports from the bound-back venv
        lib = run(box, "import json, numpy\nprint('ok')")
        assert lib.verdict == "AC", lib.first_failure


@needs_root
def test_a_data_directory_made_after_start_is_hidden_too(sb):
    """The sandbox is usually started before a trainer writes its data; a new directory at / must
    be covered before the next test runs, not only those present when the worker started."""
    run(sb, "print('ok')")  # the workers are up
    with planted_host_files() as (data, stray):
        code = READ_HOST.format(
            paths=[str(data / "train.jsonl"), str(stray)], sock=str(data / "sock"), secret=SECRET
        )
        for _ in range(2):  # both workers
            r = run(sb, code)
            assert r.verdict == "AC", r.first_failure


@needs_root
def test_filling_scratch_space_is_bounded_and_output_still_counts(sb):
    """tmpfs is memory that the memory limit does not see: each private directory was a 1 GB tmpfs,
    so one run could hold 4 GB beyond its limit, and filling /tmp also lost the program's stdout."""
    caps = sb.isolation_report()["scratch_mb"]
    assert sum(caps.values()) <= 512, caps
    r = run(
        sb,
        """
        import os
        total = 0
        for d in ["/tmp", "/var/tmp", "/dev/shm", "."]:
            for i in range(200):
                try:
                    with open(os.path.join(d, f"fill{i}"), "wb") as f:
                        f.write(b"x" * (4 << 20))
                except OSError:
                    break
                total += 4
        print("ok" if total <= 512 else f"wrote {total} MB")
    """,
        time_limit_s=5,
    )
    assert r.verdict == "AC", r.first_failure
    left = run(
        sb,
        """
        import os
        left = [n for d in ["/tmp", "/var/tmp", "/dev/shm", "."] for n in os.listdir(d) if "fill" in n]
        print("ok" if not left else left)
    """,
    )
    assert left.verdict == "AC", left.first_failure  # the next run starts empty


#: Reads every writable mapping of its own memory (inherited from the process it was forked from)
#: and prints what looks like an answer of the problems below.
MEMORY_SCAN = r"""
import ctypes, re
input()
found = set()
with open("/proc/self/maps") as maps:
    for line in maps:
        span, perm = line.split()[:2]
        lo, hi = (int(x, 16) for x in span.split("-"))
        if "rw" in perm and hi - lo < 1 << 28:
            try:
                found.update(re.findall(rb"ANSWER-\d-[0-9a-f]{8}", ctypes.string_at(lo, hi - lo)))
            except Exception:
                pass
print(sorted(found))
"""


def _answer_tests(size: int) -> list[dict[str, str]]:
    tag = uuid.uuid4().hex[:8]
    return [
        {"input": f"{i}\n", "output": f"ANSWER-{i}-{tag}" + "." * size + "\n"} for i in range(3)
    ]


@pytest.mark.parametrize("size", [600, 100_000])
def test_a_program_cannot_read_an_earlier_programs_output_from_memory(size):
    """GRPO grades many completions of one prompt on the same workers. Bug: the fork server kept
    what it had read (a correct completion's output) in freed memory that the next program's
    children inherited, so a completion could scan its own memory and print the answer."""
    problem = {"test_type": "stdio", "tests": _answer_tests(size)}
    correct = f"i = input().strip()\nprint({problem['tests'][0]['output'][:-1]!r}.replace('-0-', f'-{{i}}-'))"
    with Sandbox(workers=1) as box:
        assert box.run(problem, correct).verdict == "AC"
        r = box.run(problem, MEMORY_SCAN)
    assert r.first_failure["actual"] == "[]\n", r.first_failure


def test_a_program_cannot_read_a_checkers_expected_answers_from_memory():
    """A checker is sent the expected output; it runs in a session of its own, after the tests,
    so neither a later program nor a later test of the same program can find it."""
    checker = "def check(inp, expected, actual):\n    return expected.split() == actual.split()\n"
    problem = {"test_type": "stdio", "tests": _answer_tests(0), "checker": checker}
    with Sandbox(workers=1) as box:
        assert box.run(problem, "print('no')").verdict == "WA"  # the checker saw every answer
        r = box.run(problem, MEMORY_SCAN)
    assert r.first_failure["actual"] == "[]\n", r.first_failure


def test_work_handed_to_a_process_never_waited_for_still_counts(sb):
    """Bug: only the program's own process (and what it waited for) was timed, so a program
    could fork a helper, read its answer from a pipe and exit: a TLE solution passed, and the
    speed reward, which compares CPU time, saw it as a 2 ms program."""
    n = 12_000_000  # about 0.8 s of CPU here, over the 0.5 s limit
    r = run(
        sb,
        f"""
        import os
        r, w = os.pipe()
        if os.fork() == 0:
            s = 0
            for i in range({n}):
                s += i
            os.write(w, b"ok")
            os._exit(0)
        os.close(w)
        print(os.read(r, 2).decode(), flush=True)
        os._exit(0)
    """,
    )
    assert r.verdict == "TLE", (r.verdict, r.cpu_ms)


def test_memory_spread_over_forked_helpers_counts_as_one(sb):
    """Bug: the memory limit (RLIMIT_AS, and the resident check) bound each process alone, so four
    helpers of 150 MB each held 600 MB under a 256 MB limit (128 processes could hold 160 GB)."""
    r = run(
        sb,
        """
        import os, time
        kids = []
        for k in range(4):
            pid = os.fork()
            if pid == 0:
                b = bytearray(150 << 20)
                for i in range(0, len(b), 4096):
                    b[i] = 1
                time.sleep(2)
                os._exit(0)
            kids.append(pid)
        time.sleep(1.5)
        print("ok", flush=True)
    """,
        time_limit_s=2,
    )
    assert r.verdict == "MLE", (r.verdict, r.peak_mem_kb)


SHM_KEY = 0x5EC4E7
SHM = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.shmat.restype = ctypes.c_void_p\n"


@needs_root
@needs_ipc_ns
def test_sysv_shared_memory_neither_leaks_to_the_host_nor_reaches_the_next_program(sb):
    """Bug: SysV segments live until removed, in the host's IPC namespace: a program could leave
    64 MB behind for good (any number of times), and the next program could read it."""
    r = run(
        sb,
        SHM
        + textwrap.dedent(f"""
        shmid = libc.shmget({SHM_KEY}, 64 << 20, 0o1666)  # IPC_CREAT | 0o666
        addr = libc.shmat(shmid, None, 0)
        ctypes.memmove(addr, b"ANSWER", 6)
        made = [shmid, libc.msgget({SHM_KEY}, 0o1666), libc.semget({SHM_KEY}, 3, 0o1666)]
        print("ok" if min(made) >= 0 else f"made {{made}}")
    """),
    )
    assert r.verdict == "AC", r.first_failure
    host = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    assert not any(line.split() and int(line.split()[0]) == SHM_KEY for line in host)
    for _ in range(2):  # both workers: no segment, message queue or semaphore set is left
        found = f"[libc.shmget({SHM_KEY}, 0, 0), libc.msgget({SHM_KEY}, 0), libc.semget({SHM_KEY}, 0, 0)]"
        r = run(sb, SHM + f"print('ok' if max({found}) < 0 else {found})")
        assert r.verdict == "AC", r.first_failure


@needs_root
@needs_ipc_ns
def test_sysv_shared_memory_cannot_hold_memory_beyond_the_limit(sb):
    """Bug: a detached SysV segment is memory no process holds, so neither RLIMIT_AS nor the tree's
    resident size saw it: a program kept 1.2 GB of segments under a 256 MB limit (the kernel's
    default allows terabytes), for as long as it ran."""
    r = run(
        sb,
        SHM
        + textwrap.dedent("""
        held = 0
        for k in range(8):
            shmid = libc.shmget(0, 32 << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0o600
            if shmid < 0:
                break
            addr = libc.shmat(shmid, None, 0)
            ctypes.memset(addr, 1, 32 << 20)
            libc.shmdt(ctypes.c_void_p(addr))
            held += 32
        print("ok" if held <= 64 else f"held {held} MB")
    """),
        time_limit_s=5,
    )
    assert r.verdict == "AC", r.first_failure


KEYS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[os.uname().machine]
def read(keyring, name):
    kid = libc.syscall(KEYCTL, 10, keyring, b"user", name, 0)  # KEYCTL_SEARCH
    buf = ctypes.create_string_buffer(64)
    n = libc.syscall(KEYCTL, 11, kid, buf, 64) if kid > 0 else -1  # KEYCTL_READ
    return buf.raw[:n] if n > 0 else None
"""


@needs_root
@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="keyctl number unknown")
def test_kernel_keyrings_hold_nothing_of_the_trainer_nor_of_the_last_program(sb):
    """Bug: the program possessed the session keyring it inherited from the trainer (and could read
    a token kept there), and a key it added to its user's keyring reached the next program."""
    machine = os.uname().machine
    libc = ctypes.CDLL(None, use_errno=True)
    add_key = {"x86_64": 248, "aarch64": 217}[machine]
    mine = libc.syscall(add_key, b"user", b"cm-trainer-token", SECRET.encode(), len(SECRET), -3)
    if mine < 0:  # e.g. a container's seccomp profile refuses keyrings to everyone: no channel
        pytest.skip(f"keyrings refused here (errno {ctypes.get_errno()})")
    try:
        r = run(sb, KEYS + "print('ok' if read(-3, b'cm-trainer-token') is None else 'read it')")
        assert r.verdict == "AC", r.first_failure
        for ring in (-4, -3):  # the run user's keyring, the session keyring the run possesses
            plant = f"libc.syscall(ADD_KEY, b'user', b'cm-answer', b'42', 2, {ring})"
            assert run(sb, KEYS + f"print('ok' if {plant} > 0 else 'no')").verdict == "AC"
            for _ in range(2):  # both workers
                r = run(
                    sb, KEYS + f"print('ok' if read({ring}, b'cm-answer') is None else 'read it')"
                )
                assert r.verdict == "AC", (ring, r.first_failure)
    finally:
        libc.syscall({"x86_64": 250, "aarch64": 219}[machine], 21, mine)  # KEYCTL_INVALIDATE


@needs_root
@needs_pid_ns
def test_other_processes_and_their_command_lines_are_invisible(sb):
    """Bug: without a pid namespace a program could list every process on the machine and read
    its command line (a trainer started with a token in its arguments)."""
    import subprocess
    import sys

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", SECRET])
    try:
        r = run(
            sb,
            f"""
            import os
            seen = []
            for p in os.listdir("/proc"):
                if p.isdigit():
                    try:
                        seen.append(open(f"/proc/{{p}}/cmdline", "rb").read())
                    except OSError:
                        pass
            print("ok" if not any({SECRET.encode()!r} in c for c in seen) and len(seen) <= 3 else f"saw {{len(seen)}}")
        """,
        )
        assert r.verdict == "AC", r.first_failure
    finally:
        other.kill()
        other.wait()


@needs_root
def test_a_user_namespace_cannot_uncover_host_directories(sb):
    """A program may create its own user and mount namespaces (where it is "root"), but the covers
    it inherited are locked: unmounting one fails, and the host's files stay hidden."""
    repo = str(Path(__file__).resolve().parents[2])
    r = run(
        sb,
        f"""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare(0x10000000 | 0x00020000)  # CLONE_NEWUSER | CLONE_NEWNS (may be refused: fine)
        for top in ["/" + n for n in os.listdir("/")]:
            libc.umount2(top.encode(), 2)  # MNT_DETACH
        print("ok" if not os.path.exists({repo + "/README.md"!r}) else "uncovered")
    """,
    )
    assert r.verdict == "AC", r.first_failure


@needs_root
@needs_ipc_ns
def test_posix_message_queues_do_not_reach_the_next_program(sb):
    """Bug: a POSIX message queue outlives its process, in the worker's IPC namespace: the next
    program on that worker could receive what the last one sent."""
    mq = "import ctypes, os\nrt = ctypes.CDLL('librt.so.1', use_errno=True)\n"
    sent = run(
        sb,
        mq + "q = rt.mq_open(b'/cm-answer', os.O_CREAT | os.O_RDWR, 0o666, None)\n"
        "print('ok' if q >= 0 and rt.mq_send(q, b'42', 2, 0) == 0 else 'no queue')",
    )
    assert sent.verdict == "AC", sent.first_failure
    for _ in range(2):  # both workers
        r = run(sb, mq + "print('ok' if rt.mq_open(b'/cm-answer', os.O_RDWR) < 0 else 'found it')")
        assert r.verdict == "AC", r.first_failure


@needs_root
def test_the_io_directory_is_out_of_reach(sb):
    """The program's own source, its input, a checker's expected answer and the harness's note live
    in the worker's I/O directory (only root may enter it): a program can neither read them there
    nor plant a compiled program for the next run."""
    iodir = sb.isolation_report()["io_directory"]
    r = run(
        sb,
        f"""
        import os
        reached = []
        for name in ["", "code", "code.marshal", "in", "check", "note", "out"]:
            p = os.path.join({iodir!r}, name)
            try:
                os.listdir(p) if not name else open(p, "rb").read()
                reached.append(name or "listing")
            except OSError:
                pass
            try:
                open(p, "wb").write(b"x")
                reached.append("wrote " + name)
            except OSError:
                pass
        print("ok" if not reached else reached)
    """,
    )
    assert r.verdict == "AC", r.first_failure


def test_a_program_cannot_pass_off_its_failure_as_the_harnesss(sb):
    """A compile error (CE) or a harness fault (SE: retried, then no reward at all) is reported by the
    harness in a note the program cannot write. A program that writes the same words on its record
    descriptor and exits with the harness's status is only a program that failed (RE)."""
    for forged in ('{"ce": "SyntaxError"}', '{"se": "test code does not compile"}'):
        r = run(sb, f"import os\nos.write(3, {forged!r}.encode())\nos._exit(71)")
        assert r.verdict == "RE" and r.error is None, (forged, r.verdict, r.error)


def test_runs_start_without_new_privileges_nor_core_dumps(sb):
    r = run(
        sb,
        """
        import resource
        status = open("/proc/self/status").read()
        ok = "NoNewPrivs:\\t1" in status and resource.getrlimit(resource.RLIMIT_CORE) == (0, 0)
        print("ok" if ok else status)
    """,
    )
    assert r.verdict == "AC", r.first_failure


def test_the_cleanup_never_follows_a_link_a_program_left(tmp_path):
    """After every run the worker, as root, removes what the run left in its directories; a link
    a program leaves there (to the I/O directory, to a system directory) is removed, never
    followed: the judge must not empty a directory for it."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "filters" / "sandbox" / "worker" / "isolation.py"
    spec = importlib.util.spec_from_file_location("_cm_worker_isolation", path)
    isolation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(isolation)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    run_dir = tmp_path / "run"
    (run_dir / "d" / "e").mkdir(parents=True)
    (run_dir / "d" / "e" / "f").write_text("y")
    (run_dir / "d" / "link").symlink_to(outside)
    (run_dir / "link").symlink_to(outside)
    (run_dir / "file-link").symlink_to(outside / "keep")
    isolation.remove_tree(str(run_dir))
    assert not run_dir.exists() and (outside / "keep").read_text() == "x"
