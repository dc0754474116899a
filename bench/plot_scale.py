"""Plot how cost grows with the number of turns, from `bench/results/scale.json`.

Run: `python bench/plot_scale.py [--input results/scale.json] [--out results/scale.png]`
(paths default to `bench/results/`).

Six panels against turns: ingest time, `context` p95, API RSS, engine RSS, disk size and one
consolidation cycle's duration; the issue's targets are dashed lines. Rows measured with turn
vectors from the model, random turn vectors or none are separate series (never joined).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

PANELS: tuple[tuple[str, str, Any, float | None], ...] = (
    ("ingest (min)", "ingest.seconds", lambda v: v / 60, 30.0),
    ("context p95 (ms)", "context.latency_ms.p95", lambda v: v, 100.0),
    ("API RSS (MiB)", "api_rss_mib", lambda v: v, 1536.0),
    ("engine RSS (MiB)", "engine_rss_mib", lambda v: v, None),
    ("disk (MiB)", "data_dir_bytes", lambda v: v / 2**20, None),
    ("consolidation cycle (s)", "consolidation.seconds", lambda v: v, None),
)


def _get(row: dict[str, Any], path: str) -> float | None:
    cur: Any = row
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return float(cur) if isinstance(cur, int | float) else None


def plot(data: dict[str, Any], out: Path) -> Path:
    """Draw the panels for every measured size into `out` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    rows = data.get("sizes", [])
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    series = {
        "model": ("o-", "turns embedded by the model"),
        "random": ("s--", "turn vectors random (ingest without the model)"),
        "none": ("^:", "no turn vectors"),
    }
    for ax, (title, path, fn, target) in zip(axes.flat, PANELS, strict=True):
        for embedded, (style, label) in series.items():
            pts = sorted(
                (r["turns"], fn(v))
                for r in rows
                if r.get("turn_embeddings", "model") == embedded
                and (v := _get(r, path)) is not None
            )
            if pts:
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, ys, style, label=label)
                for x, y in pts:
                    ax.annotate(
                        f"{y:.0f}" if y >= 10 else f"{y:.2g}",
                        (x, y),
                        textcoords="offset points",
                        xytext=(4, 4),
                        fontsize=8,
                    )
        if target is not None:
            ax.axhline(target, color="red", linestyle=":", linewidth=1, label="target")
        ax.set_ylim(bottom=0)
        ax.set_title(title)
        ax.set_xlabel("turns")
        ax.grid(alpha=0.3)
        ax.ticklabel_format(axis="x", style="sci", scilimits=(3, 3))
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=3)
    m = data.get("machine", {})
    fig.suptitle(
        f"remgraph at scale on the embedded engine ({m.get('cpus')} CPUs, "
        f"{m.get('memory_gib')} GiB; measured {str(m.get('measured_at', ''))[:16]})"
    )
    fig.tight_layout(rect=(0, 0.05, 1, 0.95))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--input", type=Path, default=RESULTS / "scale.json")
    p.add_argument("--out", type=Path, default=RESULTS / "scale.png")
    args = p.parse_args()
    if not args.input.exists():
        sys.exit(f"{args.input} does not exist: run bench/bench_scale.py first")
    print(plot(json.loads(args.input.read_text()), args.out))


if __name__ == "__main__":
    main()
