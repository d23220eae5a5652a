"""Reference (mpmath) implementations of the last-iterate family (Kong–Ribero, cyclic DP-SGD on
weakly convex losses; SPEC_rdp.md §3)."""

from __future__ import annotations

__all__: list[str] = []
