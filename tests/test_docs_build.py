"""The documentation site builds with ``mkdocs build --strict`` and carries every public name.

The API reference pages (docs/api/*.md) are generated from the package's public names by
tools/api_pages.py and rendered from the docstrings by mkdocstrings, so the site cannot drift
from the code (issue 15).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("api_pages", ROOT / "tools" / "api_pages.py")
assert _spec is not None and _spec.loader is not None
api_pages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(api_pages)


def test_api_pages_are_current() -> None:
    for page, text in api_pages.render().items():
        path = ROOT / "docs" / "api" / page
        assert path.read_text(encoding="utf-8") == text + "\n", "run `python tools/api_pages.py --write`"


def test_site_builds_strict_with_every_public_name(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                          str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-4000:]
    ids: set[str] = set()
    for html in (tmp_path / "site" / "api").rglob("index.html"):
        ids.update(re.findall(r'id="(pabi\.[A-Za-z0-9_.]+)"', html.read_text(encoding="utf-8")))
    names = api_pages.documented()
    assert len(names) > 100
    missing = sorted(set(names) - ids)
    assert not missing, f"public names missing from the built site: {missing}"
    # the glossary page and the first page are on the site too
    assert (tmp_path / "site" / "glossary" / "index.html").exists()
    assert (tmp_path / "site" / "index.html").exists()
