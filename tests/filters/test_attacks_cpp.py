"""Hostile C++ programs: every attack of test_attacks.py in C++ form, and those only a compiled
program can make (raw system calls, huge static arrays, compile-time bombs). Each gets the right
verdict, leaves nothing running and reaches nothing outside.

The run-time attacks share one executable (`cpp_attacks.cpp`, compiled once: the sandbox keeps
its binary), its input naming the attack.
"""

from __future__ import annotations

import os
import shutil
import socket
import uuid
from pathlib import Path

import pytest

from filters.sandbox import Limits, Sandbox
from tests.filters.test_attacks import SECRET, _uid_procs, needs_ipc_ns, planted_host_files

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="full isolation needs root")

ATTACKS = Path(__file__).with_name("cpp_attacks.cpp").read_text()
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sb():
    os.environ["CODEMIX_TEST_SECRET"] = SECRET
    with Sandbox(
        workers=2,
        time_limit_s=0.5,
        memory_limit_mb=256,
        output_limit_bytes=1 << 20,
        compile_limits=Limits(time_s=3.0, memory_mb=512, output_bytes=16 << 20),
    ) as box:
        yield box
    os.environ.pop("CODEMIX_TEST_SECRET", None)


def _clean(sb: Sandbox) -> None:
    if os.geteuid() == 0:  # runs have their own uid only when started as root
        assert _uid_procs(sb) == [], "a process of the run is still alive"


def attack(sb: Sandbox, name: str, *args: str, **kw):
    problem = {"test_type": "stdio", "tests": [{"input": " ".join([name, *args]), "output": "ok"}]}
    r = sb.run(problem, ATTACKS, language="cpp", **kw)
    assert r.verdict != "CE", r.first_failure
    _clean(sb)
    return r


@pytest.fixture(scope="module")
def tight():
    """A sandbox whose compiles get 0.6 s of CPU and 256 MB: compile-time bombs end sooner."""
    with Sandbox(
        workers=1, compile_limits=Limits(time_s=0.6, memory_mb=256, output_bytes=16 << 20)
    ) as box:
        yield box


def compiled(sb: Sandbox, source: str):
    """The verdict of a program that attacks at compile time."""
    r = sb.run(
        {"test_type": "stdio", "tests": [{"input": "", "output": ""}]}, source, language="cpp"
    )
    _clean(sb)
    return r


# ---- run time: the attacks of test_attacks.py --------------------------------------------------
def test_the_attacks_compile_once(sb):
    first = attack(sb, "exit_code")
    again = attack(sb, "exit_code")
    assert first.verdict == again.verdict == "RE"
    assert again.compile_ms == 0.0 and first.language == "cpp"


@needs_root
def test_fork_bomb(sb):
    assert attack(sb, "fork_bomb", time_limit_s=0.2).verdict in ("TLE", "RE")


def test_memory_bombs(sb):
    # 3 s of CPU: touching 256 MB page by page took past the fixture's 0.5 s once at load 19 (a
    # TLE, not the MLE this checks); the memory limit must be what stops it
    assert attack(sb, "memory_bomb", time_limit_s=3.0).verdict == "MLE"
    assert attack(sb, "huge_new").verdict == "MLE"  # bad_alloc at the address-space cap
    # past the address space (the limit + 256 MB) the mapping is refused; under it, touched, the
    # pages count
    assert attack(sb, "mmap_noreserve", "8192").verdict == "AC"
    assert attack(sb, "mmap_noreserve", "400").verdict == "MLE"


def test_infinite_loop_is_tle_by_cpu(sb):
    r = attack(sb, "spin")
    assert r.verdict == "TLE"  # how soon after the limit: benchmarks/judging/cpp_sandbox.py


def test_long_sleep_hits_wall_ceiling(sb):
    r = attack(sb, "sleep", time_limit_s=0.1)  # blocked past 3x + 1 s
    assert r.verdict == "TLE"  # a sleep uses no CPU: only the wall ceiling stops it


def test_output_flood(sb):
    assert attack(sb, "flood_stdout").verdict == "OLE"
    assert attack(sb, "flood_stderr").verdict == "OLE"


@needs_root
def test_writing_outside_its_directory(sb, tmp_path):
    marker = f"codemix-attack-{uuid.uuid4().hex}"
    targets = [f"/tmp/{marker}", f"/var/tmp/{marker}", f"/dev/shm/{marker}"]
    targets += [str(tmp_path / marker), str(Path(__file__).with_name(marker))]
    assert attack(sb, "write_files", *targets).verdict == "AC"
    assert not any(os.path.exists(t) for t in targets)


@needs_root
def test_host_files_and_sockets_are_out_of_reach(sb):
    with planted_host_files() as (data, stray):
        paths = [str(data / "train.jsonl"), str(stray), str(REPO / "README.md"), __file__]
        r = attack(sb, "read_files", *paths, "/etc/shadow", "/root/.bashrc")
        assert r.verdict == "AC", r.first_failure
        assert attack(sb, "unix_socket", str(data / "sock")).verdict == "AC"


def test_environment_is_scrubbed(sb):
    r = attack(sb, "env", "CODEMIX_TEST_SECRET", "PYTHONPATH", "VIRTUAL_ENV")
    assert r.verdict == "AC", r.first_failure


@needs_root
def test_no_network(sb):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        r = attack(sb, "network", str(server.getsockname()[1]))
    finally:
        server.close()
    assert r.verdict == "AC", r.first_failure


@needs_root
def test_cannot_kill_the_parent_and_signals_change_nothing(sb):
    assert attack(sb, "kill_parent").verdict == "AC"
    assert attack(sb, "ignore_sigterm").verdict == "TLE"
    assert attack(sb, "exit_code").verdict == "RE"  # the workers are all still serving


@needs_root
def test_orphans_daemons_and_threads_are_killed(sb):
    assert attack(sb, "daemon").verdict == "AC"
    assert attack(sb, "threads").verdict == "AC"
    assert attack(sb, "close_stdio").verdict == "AC"


def test_crashes_are_runtime_errors(sb):
    # the stack (256 MB) runs out before a 512 MB memory limit does
    assert attack(sb, "stack", memory_limit_mb=512, time_limit_s=3).verdict == "RE"
    assert attack(sb, "segfault").verdict == "RE"
    assert attack(sb, "abort").verdict == "RE"


@needs_root
def test_work_and_memory_spread_over_forked_processes_count(sb):
    r = attack(sb, "orphan_spin")
    assert r.verdict == "TLE", (r.verdict, r.cpu_ms)  # 457.7 CPU-ms at load 7-20: stopped by the wall ceiling
    assert attack(sb, "spread_memory").verdict == "MLE"


@needs_root
@needs_ipc_ns
def test_sysv_shared_memory_does_not_reach_the_next_program(sb):
    assert attack(sb, "shm_leave").verdict == "AC"
    for _ in range(2):  # both workers
        assert attack(sb, "shm_find").verdict == "AC"


@needs_root
def test_keys_do_not_reach_the_next_program(sb):
    assert attack(sb, "keyring").verdict == "AC"
    for _ in range(2):
        assert attack(sb, "keyring_find").verdict == "AC"


@needs_root
def test_other_processes_are_invisible_and_privileges_are_dropped(sb):
    assert attack(sb, "proc").verdict == "AC"
    assert attack(sb, "privileges").verdict == "AC"


@needs_root
def test_the_io_directory_and_the_binaries_in_it_are_out_of_reach(sb):
    """The executable lives in the worker's I/O directory (root's alone): a program can neither
    read the last program's binary nor plant one for the next run."""
    iodir = sb.isolation_report()["io_directory"]
    for _ in range(2):
        r = attack(sb, "io_dir", iodir)
        assert r.verdict == "AC", r.first_failure
    py = sb.run(
        {"test_type": "stdio", "tests": [{"input": "", "output": "ok"}]},
        f"import os\nprint('ok' if not os.access({iodir + '/bin'!r}, os.R_OK) else 'bin')",
    )
    assert py.verdict == "AC", py.first_failure


# ---- run time: what only a compiled program can do ---------------------------------------------
@needs_root
def test_raw_system_calls_are_refused(sb):
    """Inline `syscall` instructions, past libc: setuid, unshare + umount, mount, ptrace, kill
    of init, reboot. All refused: the uid, the namespaces and no_new_privs hold without libc."""
    assert attack(sb, "raw_syscalls").verdict == "AC"


@needs_root
def test_a_user_namespace_cannot_uncover_the_host(sb):
    top = "/" + REPO.parts[1]
    r = attack(sb, "user_namespace", top, str(REPO / "README.md"))
    assert r.verdict == "AC", r.first_failure


STATIC = """#include <cstdio>
static char big[{mb}u << 20];
int main() {{
    volatile char* q = big;
    for (unsigned long i = 0; i < sizeof big; i += {step}) q[i] = 1;
    std::puts("ok");
}}
"""


def test_huge_static_arrays(sb):
    tests = {"test_type": "stdio", "tests": [{"input": "", "output": "ok"}]}
    # 1.5 GB of zeroed arrays, one page touched: over the limit before it runs a line
    r = sb.run(tests, STATIC.format(mb=1536, step=1 << 30), language="cpp")
    assert r.verdict == "MLE" and "static" in r.first_failure["stderr"], r.first_failure
    touched = STATIC.format(mb=200, step=4096)  # 200 MB, every page touched
    assert sb.run(tests, touched, language="cpp").verdict == "AC"  # under 256 MB
    assert sb.run(tests, touched, language="cpp", memory_limit_mb=128).verdict == "MLE"
    _clean(sb)


# ---- compile time -------------------------------------------------------------------------------
def test_deep_template_recursion_does_not_compile(tight):
    r = compiled(
        tight,
        "template<int N> struct F { static const long v = F<N + 1>::v; };\n"
        "long x = F<0>::v;\nint main() {}\n",
    )
    assert r.verdict == "CE" and "depth" in r.first_failure["stderr"]


def test_a_constexpr_bomb_is_stopped_at_the_compile_time_limit(tight):
    r = compiled(
        tight,
        "constexpr long f() { long s = 0;\n"
        "  for (long i = 0; i < 200000; i++) for (long j = 0; j < 200000; j++) s += i ^ j;\n"
        "  return s; }\nconstexpr long x = f();\nint main() { return x; }\n",
    )
    assert r.verdict == "CE" and "time limit" in r.first_failure["stderr"]
    assert r.compile_ms < 2000


def test_endless_and_recursive_includes_do_not_compile(tight):
    assert compiled(tight, '#include "/dev/zero"\nint main() {}\n').verdict == "CE"
    # A file that includes itself must be on disk before the compile, and the program writes
    # none; its source, read on stdin from the I/O directory, is out of reach by any path.
    r = compiled(tight, '#include "/proc/self/fd/0"\nint main() {}\n')
    assert r.verdict == "CE" and "nested" not in r.first_failure["stderr"]
    r = compiled(tight, 'asm(".incbin \\"/dev/zero\\"");\nint main() {}\n')
    assert r.verdict == "CE"


@needs_root
def test_the_compiler_cannot_read_host_files(tight):
    with planted_host_files() as (data, _):
        for path in (str(data / "train.jsonl"), "/etc/shadow", str(REPO / "README.md")):
            for source in (f'#include "{path}"\n', f'asm(".incbin \\"{path}\\"");\n'):
                r = compiled(tight, source + "int main() {}\n")
                assert r.verdict == "CE", (path, r.verdict)
                assert SECRET not in str(r.first_failure)


def test_an_executable_past_the_output_limit_does_not_compile(tight):
    r = compiled(tight, "char big[64 << 20] = {1};\nint main() { return big[5]; }\n")
    assert r.verdict == "CE", r.first_failure
