"""The module map of pabi: one line per source file, generated from the files themselves.

``docs/architecture.md`` holds the map between the markers ``<!-- module-map:start -->`` and
``<!-- module-map:end -->``; ``tests/test_architecture.py`` fails when it is out of date, when a
source file has no opening doc line, or when a file grows beyond the size limit.

Usage (from the repository root)::

    python tools/module_map.py            # print the map
    python tools/module_map.py --write    # rewrite the block in docs/architecture.md

The one-line description of a Rust file is its first ``//!`` line; of a Python file, the first
line of its module docstring. Test-only files are listed too (they sit beside the code they test).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
START, END = "<!-- module-map:start -->", "<!-- module-map:end -->"
#: The source trees the map covers, with a heading each.
TREES = (
    ("rust/pabi-core/src", "Core crate (`rust/pabi-core/src`): the mathematics, no Python", ".rs"),
    ("rust/pabi-py/src", "Binding (`rust/pabi-py/src`): conversion, GIL release, error mapping", ".rs"),
    ("python/pabi", "Python package (`python/pabi`): the public API and the mpmath reference", ".py"),
)
#: No source file may be longer than this (lines), tests included.
MAX_LINES = 800


def sources(tree: str, ext: str) -> list[Path]:
    """The source files of one tree, sorted by path (caches and generated stubs left out)."""
    base = ROOT / tree
    return sorted(p for p in base.rglob(f"*{ext}") if "__pycache__" not in p.parts)


def summary(path: Path) -> str:
    """The file's first documentation line ('' when it has none)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".rs":
        for line in text.splitlines():
            s = line.strip()
            if s.startswith("//!"):
                body = s[3:].strip()
                if body:
                    return body
            elif s and not s.startswith("//"):
                break
        return ""
    doc = ast.get_docstring(ast.parse(text)) or ""
    return doc.strip().splitlines()[0].strip() if doc.strip() else ""


def render() -> str:
    """The markdown block: per tree a table of file, lines and description."""
    out: list[str] = []
    for tree, title, ext in TREES:
        out.append(f"### {title}\n")
        out.append("| file | lines | what it holds |")
        out.append("|---|---:|---|")
        base = ROOT / tree
        for p in sources(tree, ext):
            n = len(p.read_text(encoding="utf-8").splitlines())
            desc = summary(p).replace("|", "\\|")
            out.append(f"| `{p.relative_to(base).as_posix()}` | {n} | {desc} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def current_block() -> str:
    """The block now in docs/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    i, j = text.index(START) + len(START), text.index(END)
    return text[i:j].strip("\n") + "\n"


def write() -> None:
    """Rewrite the block in docs/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    i, j = text.index(START) + len(START), text.index(END)
    DOC.write_text(text[:i] + "\n" + render() + text[j:], encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write()
    else:
        sys.stdout.write(render())
