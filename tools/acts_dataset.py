"""Build the sentence-act training set (`ai/data/acts_sentences.jsonl`) from labelled material.

Sources, and only these (never the held-out history):
- a labelled real history (`bench/labels/<corpus>.json` with its JSONL under `--corpora`): each
  sentence a person typed that holds a label's quote takes the label's kind as its act (rule →
  instruction, decision → decision, fact → fact, lesson → problem); the other sentences get a
  weak act from labelling functions over their parse (a question, a retraction, a confirmation,
  a problem report, a request, other) — the functions label; they never decide at run time;
- a person's act for each sentence of a labelled history (`--acts`), which stands over both;
- LoCoMo dev: the sentence of each turn an observation cites that shares most content words
  with the observation is a fact; sentences of turns no observation cites are weak-labelled
  the same way as above.

    python -m tools.acts_dataset --labels bench/labels/minsky.json \
        --acts bench/labels/minsky_acts.jsonl \
        --corpora ../shared/corpora --locomo ../shared/benchmarks/locomo/locomo-dev.json
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ai import language
from ai.acts import ACTS, SENTENCES_FILE, Act, imperative
from ingest.extract.sentences import said
from remgraph.extraction_labels import load_labels, read_history, squash

LABEL_ACT: dict[str, Act] = {
    "rule": "instruction",
    "decision": "decision",
    "fact": "fact",
    "lesson": "problem",
}
_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "this",
        "that",
        "i",
        "you",
        "we",
        "my",
        "me",
        "your",
        "our",
        "they",
        "he",
        "she",
        "his",
        "her",
        "them",
        "do",
        "does",
        "did",
        "not",
        "no",
        "so",
        "just",
        "have",
        "has",
        "had",
    ]
)
# labelling functions (weak labels of unlabelled sentences, never used at run time)
_RETRACT = re.compile(
    r"\b(scratch that|never ?mind|forget (what|about|that)|ignore (what|that|my)|"
    r"undo (that|this)|revert (that|this)|go back to|not anymore|no longer)\b",
    re.I,
)
_CONFIRM = re.compile(
    r"\b(works?|worked|working|fixed|pass(es|ed|ing)?|looks good|lgtm|perfect|great|awesome|"
    r"nice|that did it|all good)\b",
    re.I,
)
_PROBLEM = re.compile(
    r"\b(error|errors|fail(s|ed|ing|ure)?|broken|crash(es|ed)?|hang(s|ing)?|wrong|bug|"
    r"doesn'?t work|isn'?t working|not working|still)\b",
    re.I,
)


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in _STOP and len(w) > 2}


def weak_act(text: str, question: bool, is_imperative: bool, *, chat: bool = False) -> Act:
    """The labelling functions' act for a sentence no label holds (`chat`: people talking)."""
    n = len(text.split())
    if question:
        return "question"
    if chat:
        return "other"
    if _RETRACT.search(text):
        return "retraction"
    if n <= 8 and _CONFIRM.search(text) and not _PROBLEM.search(text):
        return "confirmation"
    if _PROBLEM.search(text) and not is_imperative:
        return "problem"
    if is_imperative or text.casefold().startswith(("can you", "could you", "please", "let")):
        return "request"
    return "other"


def _holds(sentence: str, quote: str) -> bool:
    s, q = squash(sentence).casefold(), squash(quote).casefold()
    if len(s) >= 12 and (q in s or s in q):
        return True
    a, b = _content(s), _content(q)
    return bool(a) and len(a & b) >= 0.7 * len(a) and len(a & b) >= 3


def _weak(rows: list[dict[str, Any]]) -> None:
    docs = language.parse([r["text"] for r in rows])
    for r, d in zip(rows, docs, strict=True):
        if r.get("person"):  # a person read this very sentence: their act stands
            continue
        asks = language.is_question(d)
        if asks and r["act"] is not None:  # a label's quote asked about it: the act is asking
            r["act"], r["source"] = "question", r["source"] + ":asked"
        if r["act"] is None:
            chat = r["group"].startswith("locomo/")
            r["act"] = weak_act(r["text"], asks, imperative(d), chat=chat)
            r["source"] += ":weak"


def read_acts(path: Path | None) -> dict[tuple[str, str], Act]:
    """A person's act for each sentence of a history, by `(session, sentence)`.

    `bench/labels/<corpus>_acts.jsonl`: one line per sentence `said` splits from the history's
    user turns, with the act a person read it as; it stands over the label-derived and the weak
    acts.
    """
    if path is None:
        return {}
    out: dict[tuple[str, str], Act] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if row["act"] not in ACTS:
            raise ValueError(f"{path}:{n}: act {row['act']!r} is not one of {', '.join(ACTS)}")
        out[(row["session"], row["text"])] = row["act"]
    return out


def from_history(
    labels_path: Path, corpora: Path, acts: dict[tuple[str, str], Act] | None = None
) -> list[dict[str, Any]]:
    """Every sentence the people of a labelled history typed, with its act.

    `acts`: a person's act per sentence (`read_acts`), which stands over the others.
    """
    acts = acts or {}
    labels = load_labels(labels_path)
    history = read_history(corpora / labels.file)
    quotes = [
        (lab.kind, lab.id, ev.session, ev.quote) for lab in labels.items for ev in lab.evidence
    ]
    rows: list[dict[str, Any]] = []
    for session, messages in history.sessions.items():
        for m in messages:
            if m.role != "user":
                continue
            for s in said(m.content):
                hit = next(
                    ((k, i) for k, i, sess, q in quotes if sess == session and _holds(s, q)),
                    None,
                )
                person = acts.get((session, s))
                if person is not None:
                    act: Act | None = person
                    source = f"{labels.corpus}:person"
                else:
                    act = LABEL_ACT[hit[0]] if hit else None
                    source = f"{labels.corpus}:{hit[1]}" if hit else labels.corpus
                row: dict[str, Any] = {
                    "text": s,
                    "act": act,
                    "source": source,
                    "group": f"{labels.corpus}/{session}",
                }
                if person is not None:
                    row["person"] = True
                rows.append(row)
    return rows


def _locomo_turns(conv: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key, value in conv.items():
        if key.startswith("session_") and isinstance(value, list):
            yield from value


def from_locomo(path: Path, other_cap: int, seed: int = 7) -> list[dict[str, Any]]:
    """LoCoMo dev: observation-cited sentences as facts, a sample of the rest weak-labelled."""
    rows: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        group = f"locomo/{sample['sample_id']}"
        turns = {t["dia_id"]: t["text"] for t in _locomo_turns(sample["conversation"])}
        cited: dict[str, list[str]] = {}
        for per_session in sample["observation"].values():
            for items in per_session.values():
                for text, ids in ((i[0], i[1]) for i in items):
                    for dia in str(ids).replace(",", ";").split(";"):
                        cited.setdefault(dia.strip(), []).append(text)
        for dia, text in turns.items():
            sentences = said(text)
            if dia not in cited:
                rest.extend(
                    {"text": s, "act": None, "source": "locomo", "group": group} for s in sentences
                )
                continue
            for obs in cited[dia]:
                best = max(sentences, key=lambda s: len(_content(s) & _content(obs)), default="")
                if best and len(_content(best) & _content(obs)) >= 2:
                    rows.append(
                        {
                            "text": best,
                            "act": "fact",
                            "source": "locomo:observation",
                            "group": group,
                        }
                    )
    random.Random(seed).shuffle(rest)
    return _dedupe(rows) + rest[:other_cap]


def _dedupe(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for r in rows:
        key = r["text"].casefold()
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def main(argv: list[str] | None = None) -> None:
    """Build the training set (see the module)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--labels", type=Path, action="append", required=True)
    p.add_argument(
        "--acts",
        type=Path,
        action="append",
        default=[],
        help="a person's act per sentence (bench/labels/<corpus>_acts.jsonl), for any history",
    )
    p.add_argument("--corpora", type=Path, required=True)
    p.add_argument("--locomo", type=Path)
    p.add_argument("--locomo-other", type=int, default=1500)
    p.add_argument("--out", type=Path, default=SENTENCES_FILE)
    a = p.parse_args(argv)
    rows: list[dict[str, Any]] = []
    person: dict[tuple[str, str], Act] = {}
    for f in a.acts:
        person.update(read_acts(f))
    for lab in a.labels:
        rows.extend(from_history(lab, a.corpora, person))
    if a.locomo:
        rows.extend(from_locomo(a.locomo, a.locomo_other))
    rows = _dedupe(rows)
    _weak(rows)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w", encoding="utf-8") as f:
        for r in rows:
            r.pop("person", None)
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{a.out}: {len(rows)} sentences", dict(Counter(r["act"] for r in rows)))


if __name__ == "__main__":
    main()
