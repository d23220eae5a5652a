"""Every ``>>>`` example in the documentation pages (docs/*.md) runs and prints what it claims.

The ```python blocks of one page form one doctest (names defined in an earlier block are
visible in later ones), run with ELLIPSIS and NORMALIZE_WHITESPACE.
"""

import doctest
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.glob("*.md"))
DERIVATIONS = sorted((DOCS / "derivations").glob("*.md"))
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
# pages that describe families and must carry tested examples
FAMILY_PAGES = {"index.md", "setups.md", "engine.md", "pnsgd.md", "schedules.md", "rdp.md", "composition.md",
                "sweeps.md", "plots.md"}
# pages without doctested examples: CLI output, the errata list, the architecture map, the
# glossary (a table), the derivation pages (maths)
NO_EXAMPLES = {"cli.md", "errata.md", "architecture.md", "glossary.md"}


def _examples(page: pathlib.Path) -> str:
    return "\n\n".join(m.group(1) for m in BLOCK.finditer(page.read_text(encoding="utf-8")))


def test_pages_exist_and_are_in_the_nav():
    names = {p.name for p in PAGES}
    assert FAMILY_PAGES | NO_EXAMPLES <= names
    assert {p.stem for p in DERIVATIONS} == {"theta", "pnsgd", "schedules", "rdp", "composition", "neighbouring"}
    nav = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    for name in names:
        assert name in nav, f"{name} is not in mkdocs.yml's nav"
    for page in DERIVATIONS:
        assert f"derivations/{page.name}" in nav, f"derivations/{page.name} is not in mkdocs.yml's nav"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_examples(page):
    text = _examples(page)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"__name__": "__docs__"}, page.name, str(page), 0)
    if page.name in FAMILY_PAGES:
        assert len(test.examples) >= 3, f"{page.name} has no tested examples"
    if not test.examples:
        assert page.name in NO_EXAMPLES, f"{page.name} has no examples"
        return
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page.name} failed"


def test_fences_are_balanced():
    """A ```python fence left open would silently swallow the rest of a page."""
    for page in PAGES + DERIVATIONS:
        fences = re.findall(r"^```", page.read_text(encoding="utf-8"), re.M)
        assert len(fences) % 2 == 0, page.name


def test_readme_examples():
    """The README's ```python examples (the quick look at the API) print what they claim."""
    readme = DOCS.parent / "README.md"
    text = "\n\n".join(m.group(1) for m in BLOCK.finditer(readme.read_text(encoding="utf-8")))
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__readme__"}, "README.md", str(readme), 0)
    assert len(test.examples) >= 5
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} README examples failed"
