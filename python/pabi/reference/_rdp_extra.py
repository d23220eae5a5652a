"""Reference (mpmath) implementations of the remaining Rényi-DP helpers (Thudi et al. per-instance
and general update rules, conversions, mechanism helpers, ERM contraction; SPEC_rdp.md §2, §4, §6)."""

from __future__ import annotations

__all__: list[str] = []
