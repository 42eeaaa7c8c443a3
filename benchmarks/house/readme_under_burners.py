"""README's two commands on a fresh clone beside CPU burners, with and without `../shared/data` (issue 57).

For each case, clones this checkout's HEAD into a fresh folder (with the shared folder beside
it, a link to the one beside this checkout, so that `../shared/data` resolves, or with nothing), starts `--burners` busy loops
(`burners.py`), and runs the two bash commands under README.md's "Two commands" exactly as
written, one after the other, in the clone: the build of the embedded demo, then the tests.
Writes each command's return code, wall time, the last line of its output (pytest's summary),
and the load average before and after.

    python benchmarks/house/readme_under_burners.py --out benchmarks/results/readme_under_burners.json

Runs from a clean checkout (what is committed is what is cloned).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from burners import burners  # noqa: E402

HERE = Path(__file__).resolve().parents[2]
SHARED = HERE.parent / "shared"


def readme_commands(readme: Path) -> list[str]:
    """The one-line bash commands under README.md's "Two commands" heading, in order."""
    text = readme.read_text()
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return [m.strip() for m in re.findall(r"```bash\n(.*?)\n```", section, re.S)]


def _case(name: str, with_shared: bool, n_burners: int, tmp: Path) -> dict[str, Any]:
    root = tmp / name
    root.mkdir()
    clone = root / "codemix"
    subprocess.run(["git", "clone", "-q", str(HERE), str(clone)], check=True)
    if with_shared:
        (root / "shared").symlink_to(SHARED)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = ":".join(p for p in env.get("PATH", "").split(":") if ".venv" not in p)
    out: dict[str, Any] = {"shared_beside": with_shared, "commit": subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip(),
        "commands": []}  # fmt: skip
    with burners(n_burners, max_s=4 * 3600):
        for cmd in readme_commands(clone / "README.md"):
            load0 = os.getloadavg()
            t0 = time.monotonic()
            p = subprocess.run(["bash", "-c", cmd], cwd=clone, env=env, capture_output=True, text=True)
            lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
            out["commands"].append({
                "command": cmd, "rc": p.returncode, "wall_s": round(time.monotonic() - t0, 1),
                "load_before": [round(x, 1) for x in load0],
                "load_after": [round(x, 1) for x in os.getloadavg()],
                "last_line": lines[-1] if lines else "",
                "summary": next((ln for ln in reversed(p.stdout.splitlines())
                                 if re.search(r"\d+ (passed|failed)", ln)), ""),  # pytest's last line
                "failures": [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))][:20],
            })  # fmt: skip
            print(json.dumps(out["commands"][-1]), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--burners", type=int, default=4)
    ap.add_argument("--cases", default="with-shared,without-shared")
    ap.add_argument("--out", type=Path, default=HERE / "benchmarks" / "results" / "readme_under_burners.json")
    args = ap.parse_args()
    result: dict[str, Any] = {"command": " ".join(sys.argv), "burners": args.burners,
                              "machine": f"{os.cpu_count()} CPUs, shared", "cases": {}}  # fmt: skip
    with tempfile.TemporaryDirectory(dir=HERE.parent) as tmp:
        for name in args.cases.split(","):
            result["cases"][name] = _case(name, name == "with-shared", args.burners, Path(tmp))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
