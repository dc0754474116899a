"""Pure text analysis for the offline extractor: keyphrases (RAKE), technologies, names.

Everything here is deterministic (regular expressions, small word lists, and the words, stop words,
stems and sentences of `core.text`), so extraction is reproducible and fast (~tens of µs per turn).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.text import STOPWORDS, sentences, stem, words

__all__ = [
    "TECH_CATEGORIES",
    "Keyphrase",
    "capitalised_names",
    "clean_text",
    "keyphrases",
    "statement_category",
    "tech_category",
    "technologies",
    "top_words",
    "with_category",
]

# A small lexicon: canonical name → category. Categories scope tech-stack facts ("database" uses
# SQLite, later PostgreSQL → the newer fact supersedes the older one).
TECH_CATEGORIES: dict[str, str] = {
    # languages
    "python": "language",
    "typescript": "language",
    "javascript": "language",
    "rust": "language",
    "go": "language",
    "golang": "language",
    "java": "language",
    "kotlin": "language",
    "ruby": "language",
    "c++": "language",
    "c#": "language",
    "swift": "language",
    # databases
    "postgres": "database",
    "postgresql": "database",
    "mysql": "database",
    "sqlite": "database",
    "mongodb": "database",
    "redis": "cache",
    "neo4j": "graph database",
    "falkordb": "graph database",
    "dynamodb": "database",
    "cassandra": "database",
    "elasticsearch": "search engine",
    "opensearch": "search engine",
    # testing
    "pytest": "test framework",
    "unittest": "test framework",
    "jest": "test framework",
    "vitest": "test framework",
    "mocha": "test framework",
    "hypothesis": "test framework",
    # package managers
    "pip": "package manager",
    "uv": "package manager",
    "poetry": "package manager",
    "npm": "package manager",
    "pnpm": "package manager",
    "yarn": "package manager",
    "conda": "package manager",
    "cargo": "package manager",
    # web frameworks
    "fastapi": "web framework",
    "flask": "web framework",
    "django": "web framework",
    "express": "web framework",
    "starlette": "web framework",
    "rails": "web framework",
    "react": "frontend framework",
    "vue": "frontend framework",
    "svelte": "frontend framework",
    "angular": "frontend framework",
    "next.js": "frontend framework",
    "nextjs": "frontend framework",
    # tooling
    "ruff": "linter",
    "flake8": "linter",
    "pylint": "linter",
    "eslint": "linter",
    "black": "formatter",
    "prettier": "formatter",
    "mypy": "type checker",
    "pyright": "type checker",
    "docker": "container runtime",
    "podman": "container runtime",
    "kubernetes": "orchestrator",
    "git": "version control",
    "github": "code host",
    "jenkins": "ci service",
    "circleci": "ci service",
    "travis": "ci service",
    "buildkite": "ci service",
    "teamcity": "ci service",
    "gitlab": "code host",
    "graphql": "api style",
    "rest": "api style",
    "grpc": "api style",
    "pydantic": "validation library",
    "sqlalchemy": "orm",
    "prisma": "orm",
    "numpy": "library",
    "pandas": "dataframe library",
    "polars": "dataframe library",
    "torch": "ml framework",
    "pytorch": "ml framework",
    "tensorflow": "ml framework",
    "openai": "llm provider",
    "anthropic": "llm provider",
    "ollama": "llm runtime",
    "vllm": "llm runtime",
    "claude": "llm",
    "gpt-4": "llm",
    "gpt-4o": "llm",
    "aws": "cloud",
    "gcp": "cloud",
    "azure": "cloud",
    "terraform": "infrastructure tool",
    "nginx": "web server",
    "uvicorn": "web server",
    "gunicorn": "web server",
    "bash": "shell",
    "zsh": "shell",
    "linux": "os",
    "macos": "os",
    "windows": "os",
    "tabs": "indentation",
    "spaces": "indentation",
    "strawberry": "graphql library",
    "typer": "cli library",
    "click": "cli library",
    "celery": "task queue",
    "kafka": "message broker",
    "rabbitmq": "message broker",
    "webpack": "bundler",
    "vite": "bundler",
    "tailwind": "css framework",
    # more data stores and brokers
    "mariadb": "database",
    "clickhouse": "database",
    "duckdb": "database",
    "cockroachdb": "database",
    "timescaledb": "database",
    "snowflake": "data warehouse",
    "bigquery": "data warehouse",
    "redshift": "data warehouse",
    "memcached": "cache",
    "valkey": "cache",
    "nats": "message broker",
    "pulsar": "message broker",
    "sqs": "message queue",
    "s3": "object storage",
    "minio": "object storage",
}

_CATEGORY_SUFFIX = re.compile(r" \((?P<c>[a-z][a-z ]{1,40})\)$")


def with_category(statement: str, category: str | None) -> str:
    """`statement` ending in " (category)": what kind of thing its object is, for search.

    "job queue uses RabbitMQ (message broker)" answers a question about the broker.
    """
    if not category or statement_category(statement):
        return statement
    return f"{statement} ({category})"


def statement_category(statement: str) -> str | None:
    """The category `with_category` put at the end of a statement, if any."""
    m = _CATEGORY_SUFFIX.search(statement)
    return m.group("c") if m else None


_SPLIT = re.compile(r"[,.;:!?()\[\]{}\"“”/\\|<>=*_`~^&%$@\n\t]+|\s-\s|\s–\s|\s—\s")
_CODEY = re.compile(r"[{}();=<>]|^\s*(def|class|import|from|return|const|let|var|function)\b")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,}(?:\s+[A-Z][a-z]{2,})?)\b")


def clean_text(text: str, limit: int = 4000) -> str:
    """Collapse whitespace and cut very long texts (tool payloads) to `limit` characters."""
    t = re.sub(r"[ \t]+", " ", text).strip()
    return t[:limit]


@dataclass(frozen=True)
class Keyphrase:
    """A candidate keyphrase with its RAKE score and where it occurs."""

    phrase: str
    score: float
    count: int
    doc_ids: tuple[int, ...]


def _candidates(text: str, max_words: int) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for chunk in _SPLIT.split(text):
        current: list[str] = []
        for w in words(chunk):
            if w in STOPWORDS or len(w) < 3 or w.isdigit() or not any(c.isalpha() for c in w):
                if current:
                    out.append(tuple(current))
                current = []
            else:
                current.append(w)
        if current:
            out.append(tuple(current))
    return [c[:max_words] if len(c) > max_words else c for c in out]


_LENGTH_BONUS = {1: 1.0, 2: 1.6, 3: 1.9}


def _expand(key: tuple[str, ...], phrase_docs: dict[tuple[str, ...], set[int]]) -> tuple[str, ...]:
    """The two-word phrase a word mostly occurs in ("support" → "support group"), else the word."""
    n = len(phrase_docs[key])
    best, best_n = key, 0
    for other, ds in phrase_docs.items():
        if len(other) == 2 and key[0] in other and len(ds) >= max(2, n / 2) and len(ds) > best_n:
            best, best_n = other, len(ds)
    return best


def keyphrases(docs: Sequence[str], *, top: int = 10, max_words: int = 3) -> list[Keyphrase]:
    """Keyphrases over several documents (turns), favouring phrases that recur across them.

    Candidates are the 1–3-word n-grams inside stopword-delimited runs (the RAKE split). Score =
    documents containing it × occurrences × a length bonus (multi-word phrases are more specific).
    Single words must occur in ≥ 2 documents. A phrase overlapping a better one already chosen (one
    contains the other) is dropped. Lines that look like code are skipped.

    Args:
        docs: texts (one per turn).
        top: how many phrases to return.
        max_words: longest phrase kept.
    """
    stats = _PhraseStats.of(docs, max_words)
    scored: list[tuple[float, tuple[str, ...]]] = []
    for key, ds in stats.docs.items():
        n_docs = len(ds)
        if len(key) == 1 and (n_docs < 2 or len(key[0]) < 4):
            continue
        scored.append((n_docs * stats.count[key] * _LENGTH_BONUS[len(key)], key))
    scored.sort(key=lambda x: (-x[0], x[1]))
    kept: list[Keyphrase] = []
    chosen: list[tuple[str, frozenset[str], set[int]]] = []
    for score, key in scored:
        if len(key) == 1:
            key = _expand(key, stats.docs)
        text = " ".join(key)
        ds = stats.docs[key]
        if _overlaps(text, frozenset(key), ds, chosen):
            continue
        chosen.append((text, frozenset(key), ds))
        kept.append(Keyphrase(stats.surface_of(key), score, stats.count[key], tuple(sorted(ds))))
        if len(kept) >= top:
            break
    return kept


@dataclass
class _PhraseStats:
    """Per stemmed n-gram: the documents holding it, its count and its surface forms."""

    docs: dict[tuple[str, ...], set[int]]
    count: Counter[tuple[str, ...]]
    surface: dict[tuple[str, ...], Counter[str]]

    @classmethod
    def of(cls, docs: Sequence[str], max_words: int) -> _PhraseStats:
        phrase_docs: dict[tuple[str, ...], set[int]] = defaultdict(set)
        phrase_count: Counter[tuple[str, ...]] = Counter()
        surface: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
        for i, doc in enumerate(docs):
            prose = "\n".join(line for line in doc.splitlines() if not _CODEY.search(line))
            for run in _candidates(prose, 12):
                stems = [stem(w) for w in run]
                for n in range(1, max_words + 1):
                    for j in range(len(run) - n + 1):
                        key = tuple(stems[j : j + n])
                        phrase_docs[key].add(i)
                        phrase_count[key] += 1
                        surface[key][" ".join(run[j : j + n])] += 1
        return cls(phrase_docs, phrase_count, surface)

    def surface_of(self, key: tuple[str, ...]) -> str:
        """The most frequent way the phrase was written (ties alphabetically)."""
        return sorted(self.surface[key].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def _overlaps(
    text: str,
    words: frozenset[str],
    ds: set[int],
    chosen: Sequence[tuple[str, frozenset[str], set[int]]],
) -> bool:
    """A phrase inside (or around) a chosen one, or a fragment of a chosen phrase's context."""
    return any(
        f" {text} " in f" {c} " or f" {c} " in f" {text} " or (cw & words and ds <= cds)
        for c, cw, cds in chosen
    )


def technologies(text: str) -> list[str]:
    """Technologies from the lexicon mentioned in `text`, in order of first mention."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w in TECH_CATEGORIES and w not in seen and w not in {"go", "rest", "click", "express"}:
            seen[w] = None
    return list(seen)


def tech_category(name: str) -> str | None:
    """The lexicon category of a technology name (`sqlite` → `database`), if known."""
    key = name.lower().strip()
    if key in TECH_CATEGORIES:
        return TECH_CATEGORIES[key]
    head = key.split()[0] if key.split() else key
    return TECH_CATEGORIES.get(head)


_NOT_NAMES = frozenset(
    [
        "I",
        "The",
        "This",
        "That",
        "These",
        "Those",
        "What",
        "When",
        "Where",
        "Which",
        "Who",
        "Why",
        "How",
        "Yes",
        "No",
        "Not",
        "Yeah",
        "Okay",
        "Thanks",
        "Thank",
        "Hey",
        "Hello",
        "Sure",
        "Please",
        "Sorry",
        "Great",
        "Good",
        "Nice",
        "Wow",
        "Cool",
        "Let",
        "Also",
        "And",
        "But",
        "Or",
        "So",
        "Then",
        "Just",
        "Well",
        "Maybe",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Today",
        "Tomorrow",
        "Yesterday",
        "Error",
        "Traceback",
        "Exception",
        "True",
        "False",
        "None",
        "Note",
        "Warning",
        "Done",
        "Here",
        "There",
        "It",
        "Its",
        "My",
        "Your",
        "Our",
        "Their",
        "We",
        "You",
        "They",
        "He",
        "She",
        "Did",
        "Do",
        "Does",
        "Can",
        "Could",
        "Would",
        "Should",
        "Will",
        "Have",
        "Has",
        "Had",
        "Are",
        "Is",
        "Was",
        "Were",
        "Be",
        "Been",
        "Being",
        "Any",
        "Some",
        "All",
        "Every",
        "Each",
        "Both",
        "First",
        "Second",
        "Next",
        "Last",
        "Now",
        "Still",
        "Really",
        "Actually",
        "Anyway",
        "Oh",
        "Ah",
        "Haha",
        "Lol",
        "Hmm",
        "Congrats",
        "Congratulations",
        "Love",
        "Happy",
        "Awesome",
        "Amazing",
        "Totally",
        "Definitely",
        "Absolutely",
        "Glad",
        "Same",
        "Agreed",
        "Right",
        "Exactly",
        "Indeed",
    ]
)


def capitalised_names(text: str) -> list[str]:
    """Capitalised words or pairs inside sentences (not sentence-initial): likely names."""
    out: dict[str, None] = {}
    for sent in sentences(text):
        for m in _NAME.finditer(sent):
            name = m.group(1)
            first = name.split()[0]
            if first in _NOT_NAMES or name.lower() in TECH_CATEGORIES:
                continue
            out[name] = None
    return list(out)


def top_words(texts: Iterable[str], n: int, exclude: set[str] | None = None) -> list[str]:
    """The `n` most frequent content words across `texts`."""
    ex = exclude or set()
    c: Counter[str] = Counter(
        w
        for t in texts
        for w in words(t)
        if w not in STOPWORDS and len(w) > 2 and w not in ex and any(ch.isalpha() for ch in w)
    )
    return [w for w, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]
