"""The examples in the docstrings run and print what they claim."""

import doctest

import pytest

import pabi._api
import pabi._bounds
import pabi.composition
import pabi.divergence
import pabi.pnsgd
import pabi.rdp
import pabi.reference._engine
import pabi.reference._rdp
import pabi.schedules
import pabi.setups

MODULES = [pabi._api, pabi.setups, pabi._bounds, pabi.divergence, pabi.composition, pabi.pnsgd, pabi.reference._engine, pabi.rdp, pabi.reference._rdp, pabi.schedules]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
