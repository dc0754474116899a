"""Print the share of functions whose cyclomatic complexity (radon) is over a threshold.

`make complexity` runs it over the product packages. Functions and methods count (classes do not);
nested functions count on their own. Exit status 0, unless `--max-share` is given and exceeded.

    python tools/complexity.py [--threshold 15] [--max-share 0.02] [package ...]
"""

from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "core",
    "graph",
    "ai",
    "knowledge",
    "recall",
    "api",
    "ingest",
    "consolidate",
    "remgraph",
)


@dataclass(frozen=True)
class Measured:
    """One function's complexity and where it is."""

    package: str
    where: str
    complexity: int


def measure(package: str) -> list[Measured]:
    """Complexity of every function and method below `package`."""
    out: list[Measured] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT)
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if isinstance(block, Function):
                name = f"{block.classname}.{block.name}" if block.classname else block.name
                out.append(Measured(package, f"{rel}:{block.lineno} {name}", block.complexity))
    return out


def main(argv: list[str] | None = None) -> int:
    """Print per-package and overall figures and the functions over the threshold."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="*", default=list(PACKAGES))
    ap.add_argument("--threshold", type=int, default=15)
    ap.add_argument("--max-share", type=float, default=None)
    args = ap.parse_args(argv)
    everything: list[Measured] = []
    print(f"{'package':<12} {'> ' + str(args.threshold):>6} {'total':>6}  share")
    for pkg in args.packages:
        found = measure(pkg)
        everything += found
        over = sum(1 for m in found if m.complexity > args.threshold)
        share = over / len(found) if found else 0.0
        print(f"{pkg:<12} {over:>6} {len(found):>6}  {share:6.1%}")
    over_all = sorted(
        (m for m in everything if m.complexity > args.threshold), key=lambda m: -m.complexity
    )
    share = len(over_all) / len(everything) if everything else 0.0
    print(f"{'all':<12} {len(over_all):>6} {len(everything):>6}  {share:6.1%}")
    for m in over_all:
        print(f"  {m.complexity:>3}  {m.where}")
    if args.max_share is not None and share > args.max_share:
        print(f"share {share:.1%} is over --max-share {args.max_share:.1%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main())
