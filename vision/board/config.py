"""Tunable numbers of the board reader, read from ``vision/data/config/board.json``."""

from __future__ import annotations

from dataclasses import dataclass

from vision.config import load_config


@dataclass(frozen=True)
class BoardConfig:
    """Thresholds and sizes of :func:`vision.board.read`; see ``board.json`` for the defaults.

    Distances (``*_distance``, ``*_shift_max``) are in natural-log colour units: 0.1 is about a
    10 % change of one channel.
    """

    detect_side: int
    median_px: int
    canny_low: int
    canny_high: int
    edge_sensitivity: tuple[float, ...]
    edge_median: tuple[bool, ...]
    close_px: int
    min_area_frac: float
    max_area_frac: float
    approx_eps_frac: float
    line_angle_deg: float
    line_dist_frac: float
    max_line_groups: int
    direction_bin_deg: float
    lines_per_direction: int
    min_segment_frac: float
    quads_per_contour: int
    hull_eps_frac: float
    hull_weight: float
    screen_size: int
    max_candidates: int
    max_screened: int
    min_side_support: float
    max_side_ratio: float
    min_corner_angle_deg: float
    max_skew_deg: float
    parallel_sigma_deg: float
    rect_size: int
    refine_frac: float
    refine_sigma: float
    refine_samples: int
    refine_min_step: float
    refine_tolerance: float
    margin_min: float
    margin_max: float
    margin_step: float
    offset_frac: tuple[float, ...]
    radius_fracs: tuple[float, ...]
    ring_samples: int
    min_grid_quality: float
    good_grid_quality: float
    inner_frac: float
    inner_percentile: float
    texture_blur: float
    corner_patch_frac: float
    sector_count: int
    sector_frac: float
    rim_frac: float
    rim_enabled: bool
    calibrated_neutral_light: bool
    eps: float
    saturation: float
    chromatic_min: float
    chroma_scale_min: float
    chroma_scale_max: float
    luma_weight: float
    reject_distance: float
    sector_spread_max: float
    sector_spread_hard: float
    neutral_chroma: float
    dark_floor: float
    dark_reference: float
    dark_chroma_weight: float
    dark_tolerance: float
    background_shift_max: float
    empty_distance: float
    empty_texture_max: float
    empty_global_distance: float
    empty_seed_distance: float
    empty_seed_texture: float
    empty_min_seeds: int
    empty_cluster_distance: float
    hand_chroma: tuple[float, ...]
    hand_scale: tuple[float, ...]
    hand_distance: float
    hand_min_brightness: float
    hand_sector_slack: float
    cast_iterations: int
    cast_prior_weight: float
    calibrated_prior_weight: float
    supply: str
    light_prior: float
    calibrated_light_prior: float
    confidence_scale: float
    doubtful_confidence: float
    clipped_light_margin: float
    spread_weight: float
    ring_edge_fracs: tuple[float, ...]
    ring_missing: float
    ring_edge_shift: float
    ring_min_group: int
    clip_ratio_min: float
    split_tie: float
    hand_map_scale: int = 4
    hand_map_min_brightness: float = 0.12
    hand_board_distance: float = 0.15
    hand_open_px: int = 3
    hand_min_area: float = 0.01
    hand_cover_min: float = 0.2
    hand_board_contrast: float = 0.15
    ring_empty_keep: float = 0.5
    empty_ring_max: float = 1.5
    empty_ring_seeds: int = 4
    empty_doubt_distance: float = 0.06
    empty_doubt_texture: float = 0.035
    clip_feed: float = 0.1
    refine_min_sides: int = 3
    lattice_shift: float = 0.3
    lattice_step: float = 0.1
    lattice_min_edge: float = 0.5
    lattice_tolerance: float = 0.06
    lattice_min_spots: int = 12
    lattice_min_move: float = 0.2
    lattice_max_move: float = 1.0
    lattice_passes: int = 2
    lattice_side: int = 480
    lattice_sigmas: tuple[float, ...] = (1.5, 2.1, 3.0, 4.2, 6.0, 8.5, 12.0)
    lattice_min_blob: float = 8.0
    lattice_max_blobs: int = 150
    lattice_wide_blobs: int = 300
    lattice_wide_min_spots: int = 16
    lattice_residual: float = 0.15
    lattice_scale_ratio: float = 1.5
    lattice_neighbours: int = 6
    lattice_pitch_sigma: tuple[float, ...] = (2.5, 5.0)
    lattice_hypotheses: int = 8
    lattice_tries: int = 32
    lattice_rescue_quality: float = 0.6
    lattice_candidates: int = 10
    lattice_margin_trim: float = 0.05
    lattice_grow: tuple[int, ...] = (1, 2, 3)
    shade_percentile: float = 5.0
    shade_min_clipped: int = 1
    light_hand_ring: float = 0.5
    glare_empty_residual: float = 0.05
    glare_empty_light: tuple[float, ...] = (0.75, 1.33)
    glare_empty_share: float = 0.2
    glare_empty_print: float = 0.25
    glare_empty_ring: float = 1.5
    glare_empty_margin: float = 3.0
    glare_empty_separation: float = 0.3
    glare_hand_edge: float = 0.3
    deglare_min: float = 0.02
    deglare_light_min: float = 0.6
    deglare_fit_points: int = 5
    deglare_peak_max: float = 1.5
    deglare_confidence_min: float = 0.05
    deglare_hand_max: float = 0.05
    deglare_black_min: float = 0.1
    deglare_white_floor: float = 0.7


@dataclass(frozen=True)
class LearnConfig:
    """Settings of :func:`vision.board.learn_tokens`."""

    min_spots: int
    spread_floor: float


def default_config() -> BoardConfig:
    """The reader configuration from ``board.json``."""
    return load_config("board", BoardConfig, section="reader")


def default_learn_config() -> LearnConfig:
    """The token-learning configuration from ``board.json``."""
    return load_config("board", LearnConfig, section="learn")
