"""Whether an instruction's words say it holds beyond the moment: one rule for store and serve.

Extraction stores a correction whose words do not say it holds as a candidate (stored, not
served; `graph.models.CANDIDATE`), and the session-start read (`recall.rules.held_back`) hands
a session only instructions whose words do, so both ask this module.

An instruction holds when its main clause says so (`ai.scope`: "always", "in this repo", a
condition such as "before committing") or when it names a value of a declared slot ("use pnpm,
not npm": a tool choice holds until replaced; the caller says whether it does, from
`knowledge.vocabulary`, which this layer does not read). It does not when it is a
fragment or a question, a wish for now ("do not write code yet"), dangling ("always do this")
or when nothing says it stands.
"""

from __future__ import annotations

from functools import lru_cache

from ai.injection import addresses_model
from ai.language import fragments, questions
from ai.scope import Scope, scopes
from graph.models import CANDIDATE, CorrectionStatus

__all__ = ["first_status", "is_instruction", "scope_of_text", "unstanding"]


@lru_cache(maxsize=4096)
def scope_of_text(text: str) -> Scope:
    """How long the instruction `text` says it holds (`ai.scope`), read once per text."""
    return scopes([text])[0]


@lru_cache(maxsize=4096)
def is_instruction(text: str) -> bool:
    """Whether `text` reads as an instruction as it is: not a fragment, not a question.

    A cut-off or verbless text (`ai.language.fragments`) and a question ("How can we improve
    the rules …?") were said, not instructed.
    """
    return not fragments([text])[0] and not questions([text])[0]


def unstanding(text: str, *, names_value: bool) -> str | None:
    """Why the instruction `text` does not say it holds, or None when it does.

    `names_value`: `text` names a value of a declared slot. The reasons: `injection` (it
    addresses an AI model: `ai.injection`), `fragment`, `question`, `one_off`, `dangling`,
    `unsaid` (see the module).
    """
    if addresses_model(text):
        return "injection"
    if not is_instruction(text):
        return "question" if questions([text])[0] else "fragment"
    scope = scope_of_text(text)
    if scope is Scope.STANDING:
        return None
    if scope is Scope.UNSAID and names_value:
        return None
    return str(scope.value)


def first_status(text: str, *, explicit: bool, names_value: bool) -> CorrectionStatus:
    """The status a correction is stored with at its first sighting.

    A candidate (stored, not served) when its words do not say it holds (`unstanding`),
    however sure the extractor was that it is an instruction; else `preference` for one said
    as a standing rule (`explicit`: "always", "from now on"), `correction` otherwise.
    """
    if unstanding(text, names_value=names_value) is not None:
        return CANDIDATE
    return "preference" if explicit else "correction"
