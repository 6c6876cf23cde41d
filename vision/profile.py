"""What vision needs from a table profile.

:mod:`calibration` builds profiles; vision only relies on this protocol, so every stage works
with ``profile=None`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray


@runtime_checkable
class ProfileLike(Protocol):
    """A calibrated table.

    ``prepare`` undoes lens distortion and the colour cast of this table's light on a BGR
    ``uint8`` image of shape ``(H, W, 3)`` and returns an image of the same shape.
    ``token_model`` is the JSON form of the token appearance learned by enrolment
    (see :func:`vision.board.learn_tokens`), or ``None``.
    """

    def prepare(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]: ...

    @property
    def token_model(self) -> Mapping[str, Any] | None: ...
