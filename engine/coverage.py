"""The language-coverage matrix of docs/coverage.md, computed from a loaded taxonomy.

What each language pack covers — identity groups by axis, harm mechanisms (as
taxonomy rows with patterns), constructions (frames of the morphology layer,
pronoun references, negation, counter-speech, benign contexts, coded terms,
Arabizi) and its confidence level — is a property of ``taxonomy/``, so the
page is generated from it rather than written by hand: ``make docs-coverage``
writes it (``python -m engine.coverage --write docs/coverage.md``), and
tests/test_docs_pages.py fails when the committed page no longer matches the
taxonomy. The prose around the tables lives here too, so the page has one source.

Pattern and cue *counts* are left out on purpose: they change with nearly every
taxonomy edit and say little about coverage; what a pack covers changes rarely.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import get_args

from engine.rules.load import LoadedTaxonomy, load_taxonomy
from engine.rules.models import LANGUAGES, FrameKind, LanguagePack

YES = "✓"
NO = "—"
FRAME_KINDS: tuple[str, ...] = get_args(FrameKind)

HEADER = """\
# Language coverage

<!-- Generated from taxonomy/ by `make docs-coverage` (engine/coverage.py); do not edit by
hand: tests/test_docs_pages.py fails when this page and the taxonomy disagree. -->

What each of the eight language packs covers, read from the taxonomy in force
(version {version}). A pack covers a group when it has an anchor for it, a
mechanism when it has patterns for that mechanism's taxonomy rows, and a
construction when it has the cues, frames or lexicons the pipeline needs for it
(docs/engine-pipeline.md explains each stage, docs/taxonomy-format.md the files).
How well each language does on external tests is in [evaluation.md](evaluation.md).
"""

EXPERIMENTAL = """\
## What `experimental` means for a decision

Every result carries `language_confidence`. It is `verified` for a language whose
external functional test set (HateCheck or Multilingual HateCheck, `../shared/eval`)
scores recall ≥ 0.97 and true-negative rate ≥ 0.97, and `experimental` for every
other language: one without such a set, or one whose set it does not yet pass
(SPEC §2.1). The level is recorded per language in `taxonomy_v1.yaml`.

The level does **not** change the decision: an experimental language goes through
the same pipeline, the same weights and the same threshold ({threshold:.3f}), and
a harmful verdict still cites the row, pattern and span that fired. What it changes
is how far to rely on the verdict:

- **Harmful, experimental**: the matched span is real evidence, but the pack has
  not been shown to keep false positives under 3% on an independent set. Route it
  to a human reviewer rather than acting automatically; read `signals_matched` and
  `decision_rationale` to see what fired.
- **Not harmful, experimental**: weaker evidence of absence than in a verified
  language. Recall is unmeasured or below 0.97, so constructions the pack does not
  yet write (see *Constructions* above) and dialect or slang vocabulary are missed
  more often. Do not use an experimental language's "no harm" to clear content.
- **Tracking**: a source's severity, trend and risk are computed the same way
  whatever the language; a source speaking an experimental language deserves a
  reviewer's look before its risk level is acted on.
- A text sent **without a language** is read as `{default}` (SPEC §2.1); a text mostly
  in another script is still read as `{default}` and its rationale says so. Send
  `language` (or `"auto"`) for every text that is not in `{default}`.
"""

FOOTER = """\
## Regenerating

```sh
make docs-coverage   # after any change to taxonomy/
```
"""


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _group_name(anchor_id: str) -> str:
    """``en.religion.muslim`` -> ``muslim``; a pack's catch-all anchor reads as such."""
    name = anchor_id.rsplit(".", 1)[-1]
    return {"general": "(general terms)", "other": "(others)"}.get(name, name.replace("_", " "))


def _axes(pack: LanguagePack) -> set[str]:
    return {anchor.identity_axis for anchor in pack.anchors}


def _covered_rows(pack: LanguagePack) -> set[str]:
    return {row_id for row_id, patterns in pack.patterns.items() if patterns}


def summary(taxonomy: LoadedTaxonomy) -> list[str]:
    packs = taxonomy.packs
    n_rows = len(taxonomy.root.rows)
    axes_total = len(taxonomy.root.identity_axes)
    coded = len(taxonomy.dogwhistles.entries)

    def line(label: str, value: Callable[[str], object]) -> list[str]:
        return [label, *(str(value(code)) for code in LANGUAGES)]

    table = [
        line("confidence", lambda c: f"`{taxonomy.root.languages[c].confidence}`"),
        line("identity axes", lambda c: f"{len(_axes(packs[c]))}/{axes_total}"),
        line("identity groups (anchors)", lambda c: len(packs[c].anchors)),
        line("taxonomy rows with patterns", lambda c: f"{len(_covered_rows(packs[c]))}/{n_rows}"),
        line("morphology layer (word classes)", lambda c: YES if packs[c].words else NO),
        line("coded terms", lambda c: coded if c == "en" else NO),
        line("Arabizi (Latin-script Arabic)", lambda c: YES if packs[c].arabizi else NO),
    ]
    return ["## At a glance", "", *_table(["", *LANGUAGES], table), ""]


def groups(taxonomy: LoadedTaxonomy) -> list[str]:
    packs = taxonomy.packs
    rows = []
    for axis in taxonomy.root.identity_axes:
        cells = []
        for code in LANGUAGES:
            names = [_group_name(a.id) for a in packs[code].anchors if a.identity_axis == axis]
            cells.append(", ".join(names) if names else NO)
        rows.append([f"`{axis}`", *cells])
    intro = (
        "Anchors by identity axis: the groups a text must name (or refer back to) before "
        "any pattern can make it harmful. *(general terms)* is a pack's anchor for the "
        "axis as a whole (foreigners, migrants, minorities)."
    )
    return ["## Identity groups", "", intro, "", *_table(["axis", *LANGUAGES], rows), ""]


def mechanisms(taxonomy: LoadedTaxonomy) -> list[str]:
    packs = taxonomy.packs
    covered = {code: _covered_rows(packs[code]) for code in LANGUAGES}
    rows = []
    for name, mechanism in taxonomy.root.mechanisms.items():
        row_ids = [row.id for row in taxonomy.root.rows if row.mechanism == name]
        cells = [f"{len(covered[code] & set(row_ids))}/{len(row_ids)}" for code in LANGUAGES]
        rows.append([f"`{name}` ({mechanism.display})", *cells])
    everywhere = set.union(*covered.values())
    coded_only = sorted({row.id for row in taxonomy.root.rows} - everywhere)
    intro = (
        "Taxonomy rows with patterns in each pack, of the rows of each mechanism. "
        "A row no pack writes patterns for is reached through coded terms only"
        + (f" ({', '.join(coded_only)})." if coded_only else ".")
    )
    header = ["mechanism", *LANGUAGES]
    return ["## Harm mechanisms", "", intro, "", *_table(header, rows), ""]


def constructions(taxonomy: LoadedTaxonomy) -> list[str]:
    packs = taxonomy.packs

    def cell(ok: bool) -> str:
        return YES if ok else NO

    rows: list[list[str]] = []
    for kind in FRAME_KINDS:
        cells = []
        for code in LANGUAGES:
            pack = packs[code]
            if not pack.frames:
                cells.append("in patterns")
            else:
                cells.append(cell(kind in pack.frames))
        rows.append([f"frame: {kind.replace('_', ' ')}", *cells])
    rows += [
        ["pronoun and reference resolution", *(cell(bool(packs[c].references)) for c in LANGUAGES)],
        ["negation", *(cell(bool(packs[c].cues.negation)) for c in LANGUAGES)],
        [
            "counter-speech (reporting + condemnation)",
            *(
                cell(bool(packs[c].cues.reporting and packs[c].cues.condemnation))
                for c in LANGUAGES
            ),
        ],
    ]
    benign_kinds = sorted({_group_name(b.id) for code in LANGUAGES for b in packs[code].benign})
    for kind in benign_kinds:
        rows.append(
            [
                f"benign context: {kind}",
                *(cell(any(_group_name(b.id) == kind for b in packs[c].benign)) for c in LANGUAGES),
            ]
        )
    intro = (
        "Frames are the morphology layer's construction classes (copula, modal, wish, "
        "...; docs/taxonomy-format.md): a pack on the layer writes each construction once "
        "and gets every inflection. *in patterns* means the pack is not on the layer yet "
        "and writes its constructions out as alternations inside each pattern, so a "
        "construction or inflection its authors did not spell out is missed. The other "
        "rows are the cue lists and lexicons of the suppression and reference stages."
    )
    return ["## Constructions", "", intro, "", *_table(["construction", *LANGUAGES], rows), ""]


def coverage_markdown(taxonomy: LoadedTaxonomy) -> str:
    """The whole page."""
    root = taxonomy.root
    parts = [
        HEADER.format(version=root.version),
        *summary(taxonomy),
        *groups(taxonomy),
        *mechanisms(taxonomy),
        *constructions(taxonomy),
        EXPERIMENTAL.format(threshold=root.decision_threshold, default=root.default_language),
        FOOTER,
    ]
    return "\n".join(parts).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the page here (default: stdout)")
    parser.add_argument("--taxonomy", type=Path, help="taxonomy file (default: the shipped one)")
    args = parser.parse_args(argv)
    page = coverage_markdown(load_taxonomy(args.taxonomy))
    if args.write is None:
        sys.stdout.write(page)
    else:
        args.write.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
