"""`make eval-coded`: how well the engine reads coded group labels (issue 12, deliverable 4).

Two measurements, printed as Markdown tables; the module measures, it never gates
(exit 0 whatever the figures; 2 only when an input file is missing).

1. Recall. For every *group-naming* term of the Dogwhistle glossary (types
   "stereotype-based", "arbitrary" and "phonetic-based target group label"), the
   English HateCheck ``positive`` cases of the HateCheck group the term stands for
   are rewritten in memory, the group word replaced by the term, and classified.
   A term's recall is the share of its rewritten cases that are still flagged.
   HateCheck uses the same templates for every group, so a term whose own group is
   not a HateCheck target is put into the slot of the closest group on its identity
   axis (a *proxy* slot, reported as such): see ``SLOT_OF_PERSONA``. Terms whose
   persona names a political group (liberals, conservatives...) are not identity
   groups in harmwatch's sense and are skipped and counted.
2. Benign uses. ``tests/data/coded_benign_en.yaml`` holds ordinary-sense and
   neutral sentences using the terms, written for harmwatch; every flagged one
   is listed.

Nothing of the evaluation sets is stored in the repository: the rewriting happens
at run time. See docs/evaluation.md for the protocol and the mapping decisions.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from engine import Classification, Classifier, load_taxonomy

ROOT = Path(__file__).resolve().parents[2]
SHARED_EVAL = ROOT.parent / "shared" / "eval"
DEFAULT_GLOSSARY = SHARED_EVAL / "dogwhistles" / "glossary.tsv"
DEFAULT_HATECHECK = SHARED_EVAL / "hatecheck" / "hatecheck_scoped.csv"
DEFAULT_BENIGN = ROOT / "tests" / "data" / "coded_benign_en.yaml"

GROUP_NAMING_TYPES = frozenset(
    {
        "stereotype-based target group label",
        "arbitrary target group label",
        "phonetic-based target group label",
    }
)


@dataclass(frozen=True)
class Slot:
    """The HateCheck group whose cases a persona's terms are substituted into."""

    target_ident: str
    direct: bool  # False: a proxy slot (the persona's own group is not a HateCheck target)
    why: str


SLOT_OF_PERSONA: dict[str, Slot] = {
    "racist": Slot("black people", True, "Black people"),
    "transphobic": Slot("trans people", True, "trans people"),
    "Islamophobic": Slot("Muslims", True, "Muslims"),
    "homophobic": Slot("gay people", True, "gay people"),
    "anti-LGBTQ": Slot("gay people", True, "LGBTQ people: the sexual-orientation slot"),
    "anti-Latino": Slot(
        "immigrants", False, "Latino people: no HateCheck group; the terms are about migrants"
    ),
    "anti-Asian": Slot(
        "immigrants", False, "Asian / Indian people: no HateCheck group; national-origin slot"
    ),
    "antisemitic": Slot(
        "Muslims", False, "Jews: no HateCheck group; the other religion slot (Muslims)"
    ),
}
# Personas whose labels name political camps or stances, not identity groups (SPEC: harmwatch
# flags harm aimed at identity groups); their terms are skipped and counted.
POLITICAL_PERSONAS = frozenset(
    {"anti-liberal", "white supremacist", "liberal", "climate change denier"}
)

# How each HateCheck group is written in its sentences: the plural noun, the
# singular noun and the attributive form ("common ___ trash"). Longest first
# when matching, so "black people" wins over "black".
GROUP_FORMS: dict[str, tuple[str, str, str]] = {
    "black people": ("black people", "black person", "black"),
    "trans people": ("trans people", "trans person", "trans"),
    "gay people": ("gay people", "gay person", "gay"),
    "disabled people": ("disabled people", "disabled person", "disabled"),
    "Muslims": ("Muslims", "Muslim", "Muslim"),
    "immigrants": ("immigrants", "immigrant", "immigrant"),
    "women": ("women", "woman", "female"),
}

_VOWEL_SOUND = re.compile(r"[aeiou]", re.IGNORECASE)
_ARTICLE_BEFORE = re.compile(r"\b(an?)\s+$", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)[\"'“‘(]*$")


# -- the glossary --------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One group-naming glossary entry and the forms substituted for a group word."""

    headword: str
    persona: str
    kind: str
    singular: str
    plural: str
    surface: tuple[str, ...]

    @property
    def slot(self) -> Slot | None:
        return SLOT_OF_PERSONA.get(self.persona)


def plural_candidates(singular: str) -> set[str]:
    """English plurals a glossary surface form may list for ``singular``."""
    found = {singular + "s", singular + "es"}
    if singular.endswith("y") and singular[-2:-1] not in {"a", "e", "o", "u"}:
        found.add(singular[:-1] + "ies")
    if singular.endswith("man"):
        found.add(singular[:-3] + "men")
    return found


def term_forms(headword: str, surface: Sequence[str]) -> tuple[str, str]:
    """(singular, plural) to substitute: a singular/plural pair from the surface forms.

    The pair whose singular or plural is the headword is preferred, then the first
    pair in the glossary's order; a term listed without a plural is used as written
    in both slots (the protocol uses the glossary's plural only where it gives one).
    """
    head = headword.strip()
    pairs = [(s, p) for s in surface for p in surface if p in plural_candidates(s)]
    for singular, plural in pairs:
        if head.lower() in {singular.lower(), plural.lower()}:
            return singular, plural
    if pairs:
        return pairs[0]
    return head, head


def read_glossary(path: Path) -> list[Term]:
    """The group-naming terms of the glossary, in its order."""
    terms: list[Term] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            kind = (row.get("Type") or "").strip()
            if kind not in GROUP_NAMING_TYPES:
                continue
            headword = (row.get("Dogwhistle") or "").strip()
            surface = tuple(
                form.strip() for form in (row.get("Surface Forms") or "").split(";") if form.strip()
            )
            singular, plural = term_forms(headword, surface or (headword,))
            terms.append(
                Term(
                    headword=headword,
                    persona=(row.get("Persona/In-Group") or "").strip(),
                    kind=kind.split(" ", 1)[0],
                    singular=singular,
                    plural=plural,
                    surface=surface,
                )
            )
    return terms


# -- substitution --------------------------------------------------------------------


def group_pattern(target_ident: str) -> re.Pattern[str]:
    """The group's written forms as whole words, any case, longest first."""
    plural, singular, attributive = GROUP_FORMS[target_ident]
    forms = sorted({plural, singular, attributive}, key=len, reverse=True)
    alternation = "|".join(re.escape(form) for form in forms)
    return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])", re.IGNORECASE)


def _fit_case(replacement: str, text: str, start: int) -> str:
    if _SENTENCE_START.search(text[:start]) and replacement[:1].islower():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _fit_article(out: list[str], replacement: str) -> None:
    """Make an "a"/"an" already written before the replacement agree with it."""
    if not out:
        return
    found = _ARTICLE_BEFORE.search(out[-1])
    if found is None:
        return
    wanted = "an" if _VOWEL_SOUND.match(replacement) else "a"
    article = found.group(1)
    if article[0].isupper():
        wanted = wanted.capitalize()
    out[-1] = out[-1][: found.start(1)] + wanted + out[-1][found.end(1) :]


def substitute(text: str, target_ident: str, singular: str, plural: str) -> str | None:
    """``text`` with every form of the group replaced by the term; None if none occurs.

    The plural noun takes the term's plural, the singular noun and the attributive
    form take its singular; a sentence-initial replacement is capitalized and an
    "a"/"an" before it is made to agree.
    """
    plural_form = GROUP_FORMS[target_ident][0].lower()
    out: list[str] = []
    last = 0
    replaced = False
    for match in group_pattern(target_ident).finditer(text):
        out.append(text[last : match.start()])
        word = plural if match.group(0).lower() == plural_form else singular
        word = _fit_case(word, text, match.start())
        _fit_article(out, word)
        out.append(word)
        last = match.end()
        replaced = True
    if not replaced:
        return None
    out.append(text[last:])
    return "".join(out)


# -- the measurements ----------------------------------------------------------------


@dataclass
class TermResult:
    term: Term
    cases: int = 0
    skipped: int = 0
    flagged: int = 0
    coded: int = 0  # results whose dogwhistle_matched is set

    @property
    def recall(self) -> float | None:
        return self.flagged / self.cases if self.cases else None


@dataclass
class BenignResult:
    sentences: int = 0
    flagged: list[tuple[str, str, Classification]] = field(default_factory=list)
    unknown_terms: list[str] = field(default_factory=list)


def read_positives(path: Path) -> dict[str, list[str]]:
    """English HateCheck ``positive`` cases by target group (in memory only)."""
    by_group: dict[str, list[str]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row.get("eval_label") == "positive":
                by_group.setdefault(row["target_ident"], []).append(row["test_case"])
    return by_group


def read_benign(path: Path) -> dict[str, list[str]]:
    """term headword -> benign sentences, from the project's YAML file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("terms"), dict):
        raise ValueError(f"{path}: expected a mapping with a 'terms' mapping")
    result: dict[str, list[str]] = {}
    for term, sentences in data["terms"].items():
        if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
            raise ValueError(f"{path}: term {term!r} must list sentences (strings)")
        result[str(term)] = list(sentences)
    return result


def _classify(classifier: Classifier, texts: Sequence[str]) -> list[Classification]:
    return classifier.classify_many((text, None, "en") for text in texts)


def measure_recall(
    classifier: Classifier, terms: Iterable[Term], positives: Mapping[str, list[str]]
) -> list[TermResult]:
    results: list[TermResult] = []
    for term in terms:
        slot = term.slot
        if slot is None:
            continue
        result = TermResult(term)
        texts: list[str] = []
        for case in positives.get(slot.target_ident, []):
            rewritten = substitute(case, slot.target_ident, term.singular, term.plural)
            if rewritten is None:
                result.skipped += 1
            else:
                texts.append(rewritten)
        for found in _classify(classifier, texts):
            result.cases += 1
            result.flagged += found.is_harmful
            result.coded += found.dogwhistle_matched is not None
        results.append(result)
    return results


def measure_controls(
    classifier: Classifier, terms: Iterable[Term], positives: Mapping[str, list[str]]
) -> dict[str, tuple[int, int]]:
    """Per slot used: (cases, flagged) of the same cases with their own group word."""
    controls: dict[str, tuple[int, int]] = {}
    for target in sorted({t.slot.target_ident for t in terms if t.slot is not None}):
        texts = [case for case in positives.get(target, []) if group_pattern(target).search(case)]
        flagged = sum(found.is_harmful for found in _classify(classifier, texts))
        controls[target] = (len(texts), flagged)
    return controls


def measure_benign(
    classifier: Classifier, benign: Mapping[str, list[str]], known: Iterable[str]
) -> BenignResult:
    result = BenignResult()
    known_lower = {k.lower() for k in known}
    result.unknown_terms = [term for term in benign if term.lower() not in known_lower]
    items = [(term, sentence) for term, sentences in benign.items() for sentence in sentences]
    for (term, sentence), found in zip(
        items, _classify(classifier, [s for _, s in items]), strict=True
    ):
        result.sentences += 1
        if found.is_harmful:
            result.flagged.append((term, sentence, found))
    return result


# -- Markdown ------------------------------------------------------------------------


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def cell(value: str) -> str:
    return " ".join(value.replace("\\", "\\\\").replace("|", "\\|").split())


def row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def rule(columns: int, left: int = 1) -> str:
    """A header rule: ``left`` left-aligned columns, the rest right-aligned."""
    return "|---" * left + "|---:" * (columns - left) + "|"


def _overall_line(label: str, results: Sequence[TermResult]) -> str:
    scored = [r for r in results if r.cases]
    cases = sum(r.cases for r in scored)
    flagged = sum(r.flagged for r in scored)
    coded = sum(r.coded for r in scored)
    micro = flagged / cases if cases else None
    macro = sum(r.recall or 0.0 for r in scored) / len(scored) if scored else None
    reached = sum(1 for r in scored if (r.recall or 0.0) >= 0.8)
    return row(
        [
            label,
            str(len(scored)),
            str(cases),
            pct(micro),
            pct(macro),
            f"{reached}/{len(scored)}",
            pct(coded / cases if cases else None),
        ]
    )


def _substituted(term: Term, slot: Slot) -> str:
    """The forms put in, marked † when they still contain the slot's own group word."""
    shown = term.plural if term.plural == term.singular else f"{term.plural} / {term.singular}"
    if group_pattern(slot.target_ident).search(f"{term.plural} {term.singular}"):
        shown += " †"
    return shown


def render(
    terms: Sequence[Term],
    recall: Sequence[TermResult],
    controls: Mapping[str, tuple[int, int]],
    benign: BenignResult,
    benign_terms: int,
) -> str:
    political = [t for t in terms if t.persona in POLITICAL_PERSONAS]
    unmapped = [t for t in terms if t.slot is None and t.persona not in POLITICAL_PERSONAS]
    direct = [r for r in recall if r.term.slot is not None and r.term.slot.direct]
    lines = [
        "### coded terms: recall on English HateCheck positives, group word replaced",
        "",
        f"Group-naming glossary terms: {len(terms)}; measured: {len(recall)}; "
        f"skipped as political (not identity groups): {len(political)}"
        + (f" ({', '.join(t.headword for t in political)})" if political else "")
        + f"; no matching HateCheck group: {len(unmapped)}"
        + (f" ({', '.join(t.headword for t in unmapped)})" if unmapped else "")
        + ". Cases whose group word is misspelt (HateCheck spelling functionalities) "
        f"are skipped: {sum(r.skipped for r in recall)} in all.",
        "",
        row(["terms", "n terms", "cases", "recall (micro)", "recall (macro)", ">= 80%", "coded"]),
        rule(7),
        _overall_line("all measured", recall),
        _overall_line("direct slots only", direct),
        _overall_line("proxy slots only", [r for r in recall if r not in direct]),
        "",
        "`coded`: share of the rewritten cases whose result names a coded term "
        "(`dogwhistle_matched`).",
        "",
        "### coded terms: control (the same cases with their own group word)",
        "",
        row(["HateCheck group", "cases", "recall"]),
        rule(3),
    ]
    for target, (cases, flagged) in controls.items():
        lines.append(row([cell(target), str(cases), pct(flagged / cases if cases else None)]))
    lines += [
        "",
        "### coded terms: by term (lowest recall first)",
        "",
        row(["term", "persona", "slot", "substituted", "cases", "skipped", "recall", "coded"]),
        rule(8, left=4),
    ]
    for result in sorted(recall, key=lambda r: (r.recall or 0.0, r.term.headword.lower())):
        term = result.term
        slot = term.slot
        assert slot is not None
        lines.append(
            row(
                [
                    cell(term.headword),
                    cell(term.persona),
                    cell(slot.target_ident + ("" if slot.direct else " (proxy)")),
                    cell(_substituted(term, slot)),
                    str(result.cases),
                    str(result.skipped),
                    pct(result.recall),
                    pct(result.coded / result.cases if result.cases else None),
                ]
            )
        )
    rate = len(benign.flagged) / benign.sentences if benign.sentences else None
    lines += [
        "",
        "†: the term still contains the slot's own group word, so the case keeps an "
        "ordinary anchor; its recall says little about the coded reading.",
        "",
        "### coded terms: benign uses (tests/data/coded_benign_en.yaml)",
        "",
        row(["terms", "sentences", "flagged", "flag rate"]),
        rule(4),
        row([str(benign_terms), str(benign.sentences), str(len(benign.flagged)), pct(rate)]),
        "",
    ]
    if benign.unknown_terms:
        lines += [
            "Terms in the benign file that are not group-naming glossary terms: "
            + ", ".join(benign.unknown_terms),
            "",
        ]
    if benign.flagged:
        lines += [
            row(["term", "flagged benign sentence", "mechanism", "coded term"]),
            rule(4, left=4),
        ]
        for name, sentence, found in benign.flagged:
            match = found.dogwhistle_matched
            lines.append(
                row(
                    [
                        cell(name),
                        cell(sentence),
                        cell(found.harm_mechanism or ""),
                        cell(match.canonical if match is not None else ""),
                    ]
                )
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.eval.coded", description=__doc__)
    parser.add_argument("--glossary", type=Path, default=DEFAULT_GLOSSARY)
    parser.add_argument("--hatecheck", type=Path, default=DEFAULT_HATECHECK)
    parser.add_argument("--benign", type=Path, default=DEFAULT_BENIGN)
    args = parser.parse_args(argv)
    for label, path in (("glossary", args.glossary), ("HateCheck", args.hatecheck)):
        if not path.is_file():
            print(f"{label} not found: {path} (see ../shared/eval/README.md)", file=sys.stderr)
            return 2
    terms = read_glossary(args.glossary)
    positives = read_positives(args.hatecheck)
    benign = read_benign(args.benign)
    classifier = Classifier(load_taxonomy())
    recall = measure_recall(classifier, terms, positives)
    controls = measure_controls(classifier, terms, positives)
    benign_result = measure_benign(classifier, benign, (t.headword for t in terms))
    sys.stdout.write(render(terms, recall, controls, benign_result, len(benign)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
