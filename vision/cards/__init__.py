"""The Silver & Gold treasure-map card reader.

``read(image, catalog=None, config=None) -> list[CardReading]`` chains the stages
:mod:`~vision.cards.detect` -> :mod:`~vision.cards.rectify` -> :mod:`~vision.cards.grid` ->
:mod:`~vision.cards.identify` -> :mod:`~vision.cards.marks`;
``read_expedition(image, config=None) -> ExpeditionReading | None`` reads the face-up
expedition card; both accept ``quads=`` from :func:`vision.cards.detect.detect` to share one detection.
"""

from __future__ import annotations

from vision.cards.catalog import Catalog, CatalogCard, builtin_catalog, load_catalog
from vision.cards.expedition import read_expedition, same_shape
from vision.cards.read import CardsConfig, read

__all__ = [
    "CardsConfig", "Catalog", "CatalogCard", "builtin_catalog", "load_catalog", "read", "read_expedition",
    "same_shape",
]
