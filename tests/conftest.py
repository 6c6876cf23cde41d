"""Shared fixtures. Every generated image is made inside the test run from a seeded
``numpy.random.Generator``."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261129)
