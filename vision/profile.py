"""What vision needs from a table profile.

:mod:`calibration` builds profiles; vision only relies on this protocol, so every stage works
with ``profile=None`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = ["ProfileLike", "card_view_of"]


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


def card_view_of(profile: ProfileLike, image: NDArray[np.uint8],
                 prepared: NDArray[np.uint8] | None = None) -> NDArray[np.uint8]:
    """The view of ``image`` the map-card readers read.

    A profile may offer an optional ``prepare_cards(image)`` method (same contract as
    ``prepare``): the card readers set their thresholds from each card's own pixels and may want
    a lighter correction than the board reader. Profiles without it give ``prepared``.

    Parameters
    ----------
    profile : ProfileLike
    image : (H, W, 3) uint8 array
        The BGR photo as taken.
    prepared : (H, W, 3) uint8 array, optional
        ``profile.prepare(image)`` when already made, returned when the profile has no card
        view; made here when needed and not given.

    Returns
    -------
    (H, W, 3) uint8 array
    """
    prepare_cards = getattr(profile, "prepare_cards", None)
    if prepare_cards is not None:
        return prepare_cards(image)
    return profile.prepare(image) if prepared is None else prepared
