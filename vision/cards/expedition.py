"""The face-up expedition card (placeholder until the reader lands)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.types import ExpeditionReading


def read_expedition(image: NDArray[np.uint8], config: object | None = None) -> ExpeditionReading | None:
    """Which expedition shape is face up, or ``None``."""
    return None
