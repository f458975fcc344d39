"""A language whose scan Set is over RE2's memory budget (engine.pipeline.language.set_overflow).

Every pattern of such a pack loads and compiles on its own; only the Set of all
their dispatch parts is too large, and it is built at the language's first text.
The error then names the pack's file, the rows whose parts weigh most and the
budget, instead of RE2's bare "failed to compile Set", and the pipeline keeps the
error rather than spend seconds building the Set again for every text (the taxonomy
does not change under a running process). The budget is lowered here
(``re2x.SET_MAX_MEM``) instead of shipping a pack that large.
"""

from __future__ import annotations

import re

import pytest

from engine import LoadedTaxonomy, PackCompileError, TaxonomyError
from engine.pipeline.language import LanguagePipeline
from engine.text import re2x

# Small enough for every shipped language's Set to overflow, large enough for each of
# its expressions alone.
_TINY = 256 << 10


@pytest.mark.parametrize("code", ["en", "ha", "yo"])
def test_an_oversized_scan_names_the_file_the_rows_and_the_budget(
    taxonomy: LoadedTaxonomy, code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pipeline = LanguagePipeline(taxonomy, code)
    monkeypatch.setattr(re2x, "SET_MAX_MEM", _TINY)
    with pytest.raises(PackCompileError) as caught:
        pipeline.warm()
    message = str(caught.value)
    assert caught.value.language == code
    assert isinstance(caught.value, TaxonomyError)  # the CLI's clean exit-2 path
    assert message.startswith(str(taxonomy.path.parent / taxonomy.root.languages[code].file))
    assert "memory budget of 0.25 MB" in message and "expressions (" in message
    assert re.search(r"largest parts come from (row D2\.\d+[a-z]?-\d+|the group words)", message)
    with pytest.raises(PackCompileError) as again:
        pipeline.scanner.scan(b"x")
    assert again.value is caught.value


def _entries() -> list[str]:
    """Forty expressions of 400 alternatives: one Set needs more than 1 MB."""
    return [f"(?:{'|'.join(f'w{i}x{j}[a-z]{{1,3}}' for j in range(400))})" for i in range(40)]


def test_the_set_error_reports_the_budget_it_was_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re2x, "SET_MAX_MEM", 1 << 20)
    entries = _entries()
    with pytest.raises(re2x.SetTooLargeError) as caught:
        re2x.search_set(entries)
    assert caught.value.count == 40
    assert caught.value.chars == sum(map(len, entries))
    assert "budget of 1 MB" in str(caught.value)


def test_a_scan_over_the_budget_is_built_as_two_sets_with_the_same_hits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Arabizi scan of Arabic sits at RE2's budget: ``search_sets`` builds it as two
    halves, whose hits are the one Set's, indices and all."""
    entries = _entries()
    text = b"a w3x7ab and w30x399q then w39x0zzz, w0x0a"
    whole = re2x.search_set(entries)(text)  # the default budget holds all of them
    monkeypatch.setattr(re2x, "SET_MAX_MEM", 4 << 20)  # one Set over it, each half under
    with pytest.raises(re2x.SetTooLargeError):
        re2x.search_set(entries)
    split = re2x.search_sets(entries)
    assert sorted(split(text)) == sorted(whole) == [0, 3, 30, 39]
    assert split(b"nothing here") == []


def test_a_scan_over_the_budget_even_in_halves_still_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The error is the whole Set's: it counts every entry, not a half's."""
    entries = _entries()
    monkeypatch.setattr(re2x, "SET_MAX_MEM", 1 << 20)
    with pytest.raises(re2x.SetTooLargeError) as caught:
        re2x.search_sets(entries)
    assert caught.value.count == 40 and caught.value.chars == sum(map(len, entries))
    monkeypatch.setattr(re2x, "SET_MAX_MEM", 4 << 20)
    with pytest.raises(re2x.SetTooLargeError):
        re2x.search_sets(entries, split=False)
