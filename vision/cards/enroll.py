"""Reference faces for a user catalog, from photos of unmarked cards."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards import detect as detect_mod
from vision.cards import rectify as rectify_mod
from vision.cards.catalog import Catalog, load_catalog
from vision.cards.read import CardsConfig, default_config, read_one
from vision.errors import CatalogError


@dataclass(frozen=True)
class Enrolled:
    """An identified, unmarked card: its upright face ``(H, W, 3)`` BGR uint8."""

    id: str
    face: NDArray[np.uint8]
    confidence: float


def enroll(image: NDArray[np.uint8], catalog: Catalog | None = None,
           config: CardsConfig | None = None) -> list[Enrolled]:
    """The upright faces of the identified cards in ``image`` that show no mark.

    Cards that are partial, unknown, or have marked or uncertain cells are skipped: a reference
    must be a clean face.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        BGR photo.
    """
    cfg = config or default_config()
    cat = catalog or load_catalog()
    out: list[Enrolled] = []
    for quad in detect_mod.detect(image, cfg.detect):
        if quad.partial:
            continue
        reading = read_one(image, quad, cat, cfg)
        if reading is None or reading.id is None or reading.marked or reading.uncertain:
            continue
        # the reader's corners start at the numeral corner: the warp is upright
        face, _ = rectify_mod.warp_face(image, np.array(reading.corners), cfg.rectify)
        out.append(Enrolled(reading.id, face, reading.confidence))
    return out


def save_reference(directory: str | Path, item: Enrolled) -> Path:
    """Write ``refs/<id>.png`` under the catalog ``directory`` (created when missing).

    Raises
    ------
    CatalogError
        When the file cannot be written.
    """
    ref_dir = Path(directory) / "refs"
    try:
        ref_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CatalogError(f"{ref_dir}: cannot create the folder ({exc.strerror or exc})") from exc
    path = ref_dir / f"{item.id}.png"
    if not cv2.imwrite(str(path), item.face):
        raise CatalogError(f"{path}: cannot write the image")
    return path
