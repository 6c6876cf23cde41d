"""The balanced face's Lab, widened and centred by one look-up, is exactly the converted float32 Lab
less its centre, for a face, a window of it and one row."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.grid import balanced_lab


def test_balanced_lab_is_the_centred_float32_lab() -> None:
    rng = np.random.default_rng(12)
    face = rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)
    for image in (face, face[3:30, 7:25], face.reshape(1, -1, 3)):
        paper = rng.uniform(20.0, 255.0, 3)
        gains = float(np.mean(paper)) / np.maximum(paper, 1.0)
        bal = np.clip(image.astype(np.float32) * gains.astype(np.float32), 0, 255).astype(np.uint8)
        want = cv2.cvtColor(bal, cv2.COLOR_BGR2LAB).astype(np.float32) - np.array([0, 128, 128], np.float32)
        got = balanced_lab(image, paper)
        assert got.dtype == np.float32 and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
