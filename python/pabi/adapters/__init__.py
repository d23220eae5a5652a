"""Adapters to other privacy-accounting libraries and training loops (optional extras).

Import explicitly (``import pabi`` does not load this package)::

    from pabi.adapters import PNSGDAccountant, pnsgd_epoch_pld, to_dp_accounting_pld

* :mod:`pabi.adapters.accountant`: :class:`PNSGDAccountant`, the accountant of a projected
  noisy SGD training loop (``record_steps``, ``record_epochs``, ``epsilon``, ``delta``,
  ``state_dict``; built from keywords or a :class:`pabi.PNSGD` setup), composing epochs of the
  PNSGD privacy profile; needs only numpy.
* :mod:`pabi.adapters.dp_accounting`: pabi profiles and PLDs as dp-accounting
  ``PrivacyLossDistribution`` objects, the PNSGD RDP bound as a ``ZCDpEvent`` (needs
  ``dp-accounting``, imported when a function is called).
"""

from __future__ import annotations

from .accountant import PNSGDAccountant
from .dp_accounting import (
    pld_from_profile,
    pnsgd_epoch_pld,
    pnsgd_zcdp_event,
    pnsgd_zcdp_rho,
    to_dp_accounting_pld,
)

__all__ = [
    "PNSGDAccountant",
    "pld_from_profile",
    "pnsgd_epoch_pld",
    "pnsgd_zcdp_event",
    "pnsgd_zcdp_rho",
    "to_dp_accounting_pld",
]
