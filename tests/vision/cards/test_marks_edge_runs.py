"""Straight ink runs along a cell's sides (its outline entering the inside when the lattice line is
a pixel off, or a blurred outline) are no pen beyond the symbol's print; ink along all four sides
(a ring drawn on the outline, a cell inked through) still is."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.marks import default_config, pooled_residual, print_templates

from .conftest import jittered_x_mask, masks_ink

S = default_config().mask_px


def _template(rng: np.random.Generator) -> np.ndarray:
    masks = [jittered_x_mask(rng, inset=7) for _ in range(4)]
    return print_templates([(masks_ink(masks), np.array([["X"] * 4]))])["X"]


@pytest.mark.parametrize("sides", [("left",), ("top",), ("top", "bottom"), ("left", "top")])
def test_an_outline_along_the_sides_is_no_pen(rng: np.random.Generator, sides: tuple[str, ...]) -> None:
    cfg = default_config()
    assert cfg.print_edge_px >= 1
    tpl = _template(rng)
    cell = jittered_x_mask(rng, inset=7)
    # the outline's dark line, print_edge_px deep, along most of the side's length
    gap = 2
    for side in sides:
        depth = cfg.print_edge_px
        band = {"left": (slice(gap, S - gap), slice(0, depth)),
                "right": (slice(gap, S - gap), slice(S - depth, S)),
                "top": (slice(0, depth), slice(gap, S - gap)),
                "bottom": (slice(S - depth, S), slice(gap, S - gap))}[side]
        cell[band] = True
    ink = masks_ink([cell])
    # the premise: compared as it is, the outline reads as pen beyond the print
    assert pooled_residual(ink, (0, 0), tpl, config=replace(cfg, print_edge_px=0)) >= cfg.pooled_hi
    assert pooled_residual(ink, (0, 0), tpl) < cfg.pooled_hi / 2


def test_a_ring_on_the_outline_stays_a_mark(rng: np.random.Generator) -> None:
    cfg = default_config()
    tpl = _template(rng)
    cell = jittered_x_mask(rng, inset=7)
    img = cell.astype(np.uint8)
    cv2.rectangle(img, (0, 0), (S - 1, S - 1), 1, cfg.print_edge_px)  # ink along all four sides
    ink = masks_ink([img.astype(bool)])
    assert pooled_residual(ink, (0, 0), tpl) >= cfg.pooled_hi


def test_a_stroke_beside_an_outline_run_stays_a_mark(rng: np.random.Generator) -> None:
    cfg = default_config()
    tpl = _template(rng)
    img = jittered_x_mask(rng, inset=7).astype(np.uint8)
    img[:, :cfg.print_edge_px] = 1  # the outline along the left side
    cv2.line(img, (5, S // 2 - 3), (S - 5, S // 2 + 3), 1, 3)  # a pen stroke across the cell
    ink = masks_ink([img.astype(bool)])
    assert pooled_residual(ink, (0, 0), tpl) >= cfg.pooled_hi


def test_a_short_stroke_along_a_side_is_not_taken_for_the_outline(rng: np.random.Generator) -> None:
    cfg = default_config()
    tpl = _template(rng)
    img = jittered_x_mask(rng, inset=7)
    # a stroke hugging the side over less than print_edge_run of its length
    n = int(S * cfg.print_edge_run) - 4
    img[0:cfg.print_edge_px + 1, 2:2 + n] = True
    ink = masks_ink([img])
    expected = pooled_residual(ink, (0, 0), tpl, config=replace(cfg, print_edge_px=0))
    assert pooled_residual(ink, (0, 0), tpl) == pytest.approx(expected)
    assert expected > 0
