"""Train the sentence-act head (`ai/data/acts_head.npz`) and report it on held-out sentences.

Reads `ai/data/acts_sentences.jsonl` (built by `tools.acts_dataset`), computes each sentence's
features as `ai.acts.features` does at run time (the local embedding model's vector and the
parse's grammar), and fits a multinomial logistic regression with balanced class weights.
Held-out figures: 5-fold cross-validation grouped by session (a session's sentences are never
split between training and testing), per act precision and recall, written as JSON.

    python -m tools.train_acts [--report bench/results/acts.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ai.acts import ACTS, HEAD_FILE, SENTENCES_FILE, features
from ai.embed import LocalEmbedder

C = 2.0
"""Inverse L2 strength: chosen by the grouped cross-validation below (0.5, 1, 2, 4 tried)."""


def _fit(x: np.ndarray, y: np.ndarray, c: float) -> Any:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, class_weight="balanced", max_iter=3000)
    model.fit(x, y)
    return model


def _head_rows(model: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The model's weights in `ACTS` order; an act with no training sentence is never chosen."""
    w = np.zeros((len(ACTS), d), dtype=np.float32)
    b = np.full(len(ACTS), -1e4, dtype=np.float32)
    for row, cls in enumerate(model.classes_):
        k = ACTS.index(cls)
        w[k], b[k] = model.coef_[row], model.intercept_[row]
    return w, b


def cross_validate(x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float) -> dict[str, Any]:
    """Per act precision/recall over 5 session-grouped folds."""
    from sklearn.metrics import precision_recall_fscore_support
    from sklearn.model_selection import GroupKFold

    pred = np.empty_like(y)
    for train, test in GroupKFold(n_splits=5).split(x, y, groups):
        pred[test] = _fit(x[train], y[train], c).predict(x[test])
    acts = [a for a in ACTS if a in set(y)]
    p, r, f, n = precision_recall_fscore_support(y, pred, labels=acts, zero_division=0)
    return {
        "C": c,
        "accuracy": round(float((pred == y).mean()), 4),
        "per_act": {
            a: {
                "precision": round(float(pi), 3),
                "recall": round(float(ri), 3),
                "f1": round(float(fi), 3),
                "sentences": int(ni),
            }
            for a, pi, ri, fi, ni in zip(acts, p, r, f, n, strict=True)
        },
    }


def main(argv: list[str] | None = None) -> None:
    """Train, cross-validate and write the head (see the module)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sentences", type=Path, default=SENTENCES_FILE)
    p.add_argument("--out", type=Path, default=HEAD_FILE)
    p.add_argument("--report", type=Path)
    p.add_argument("--sweep", action="store_true", help="also cross-validate other C values")
    a = p.parse_args(argv)
    rows = [json.loads(ln) for ln in a.sentences.read_text(encoding="utf-8").splitlines() if ln]
    embedder = LocalEmbedder()
    x = features([r["text"] for r in rows], embedder)
    y = np.array([r["act"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    reports = [cross_validate(x, y, groups, c) for c in ((0.5, 1.0, 2.0, 4.0) if a.sweep else (C,))]
    model = _fit(x, y, C)
    w, b = _head_rows(model, x.shape[1])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, weights=w, bias=b, embedding_model=np.array(embedder.name))
    report = {
        "sentences": len(rows),
        "acts": dict(Counter(y.tolist())),
        "held_out": "5-fold cross-validation grouped by session (minsky) or conversation (LoCoMo)",
        "cross_validation": reports,
    }
    print(json.dumps(report, indent=2))
    if a.report:
        a.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
