"""The documentation stays true: the coverage matrix is the taxonomy's, the README links
every page in docs/, and no relative link in the README or docs/ points nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.coverage import coverage_markdown
from engine.rules.load import LoadedTaxonomy

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
# [text](target) outside code; an http(s), mailto or in-page link is not a file.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def _links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return [
        target
        for target in LINK.findall(text)
        if not target.startswith(("http://", "https://", "mailto:", "#"))
    ]


def test_the_coverage_page_is_the_taxonomys(taxonomy: LoadedTaxonomy) -> None:
    page = (DOCS / "coverage.md").read_text(encoding="utf-8")
    assert page == coverage_markdown(taxonomy), (
        "docs/coverage.md does not match the taxonomy: run `make docs-coverage` and commit it"
    )


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / target.split("#")[0]).resolve() for target in _links(ROOT / "README.md")}
    missing = [page.name for page in PAGES if page.resolve() not in linked]
    assert not missing, f"README.md does not link docs/{', docs/'.join(missing)}"


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda path: path.name)
def test_relative_links_point_to_files(page: Path) -> None:
    broken = [
        target for target in _links(page) if not (page.parent / target.split("#")[0]).exists()
    ]
    assert not broken, f"{page.name} links to missing files: {broken}"
