"""Classify the 25 measured spots as ``W U G R K P Y .`` or ``?`` (unknown).

Colours are compared in log space, where a colour cast and the brightness of the light are a
shift. Each spot is first divided by the brightness of the board around it (uneven light and
shadows), then:

1. a spot whose surrounding board patches, or whose sectors, disagree is covered by something
   (a hand) and is unknown;
2. a spot that looks like the board around it (or like the enrolled empty spot), with no emblem
   texture, is empty (unless no other empty place vouches for it and, once the light is known, a
   token's kind fits it better: a light token on a light board);
3. the light's cast and brightness are found as the shift that best explains all remaining spots
   with the token model (the seven kinds constrain each other: white and pearl are told apart by
   the blue, green, red and gold tokens on the same board); with an enrolled model the shift is
   held near zero;
4. each spot takes the nearest kind, jointly: no kind more often than the game has tokens of it,
   and white against pearl by the light tokens' tints relative to each other (a token with a
   clipped channel by its other two, and by its clipped channels as lower bounds of its tint; a
   spot that another split labels about as well keeps its kind with no confidence); a spot too far
   from every kind is unknown;
5. under a glare (white light added, which the board patches between the spots show) the spots
   are read again with that light taken away, and a spot the second reading names more surely
   takes that kind.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from vision.board.config import BoardConfig
from vision.board.learn import TokenModel
from vision.board.spots import SpotSamples, chroma, sector_deviation, spot_features, white_mix

_U1 = np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0)
_U2 = np.array([1.0, 1.0, -2.0]) / np.sqrt(6.0)


@dataclass(frozen=True)
class Classification:
    """Per-spot letters (5 strings, ``?`` unknown), confidences ``(5, 5)`` in ``[0, 1]`` and the
    estimated light shift (log BGR gains, ``(3,)``)."""

    cells: tuple[str, ...]
    confidence: NDArray[np.float64]
    shift: NDArray[np.float64]


def _residuals(x: NDArray[np.float64], means: NDArray[np.float64], shift: NDArray[np.float64],
               cfg: BoardConfig, sat: NDArray[np.bool_] | None = None,
               glare: bool = False) -> NDArray[np.float64]:
    """Log-colour residuals of every spot against every kind.

    ``x`` (N, 3) features, ``means`` (K, 3) kind means, ``shift`` (..., 3) light shifts ->
    (..., N, K, 3). A strongly coloured kind may look paler or deeper than its mean (gloss, print,
    blur), so its chroma is scaled to fit within ``[chroma_scale_min, chroma_scale_max]``;
    only a change of hue counts. ``sat`` (N, 3) marks clipped channels: the true value may be
    anything above the observed one, so a prediction above it costs nothing there. With ``glare``
    the kind may also be paled by white light added to it: light of ``b`` times the kind's own
    brightness lifts its log brightness by ``log(1 + b)`` and shrinks its log chroma by about
    ``1 / (1 + b)``, so a spot brighter than the kind by ``lift`` may show as little as
    ``chroma_scale_min * exp(-lift)`` of its chroma.
    """
    ch_m = chroma(means)  # (K, 3)
    lum_m = means.mean(-1)  # (K,)
    norm2 = (ch_m ** 2).sum(-1)  # (K,)
    chromatic = np.sqrt(norm2) >= cfg.chromatic_min
    xs = x - shift[..., None, :]  # (..., N, 3)
    a = chroma(xs)
    proj = np.einsum("...nc,kc->...nk", a, ch_m) / np.maximum(norm2, 1e-9)
    low = cfg.chroma_scale_min
    if glare:
        lift = xs.mean(-1)[..., :, None] - lum_m  # (..., N, K)
        low = cfg.chroma_scale_min * np.exp(-np.maximum(lift, 0.0))
    scale = np.where(chromatic, np.clip(proj, low, cfg.chroma_scale_max), 1.0)
    pred = lum_m[:, None] + scale[..., None] * ch_m  # (..., N, K, 3)
    diff = xs[..., :, None, :] - pred
    if sat is not None:
        diff = np.where(sat[:, None, :] & (diff < 0), 0.0, diff)
    return diff


def _norm(diff: NDArray[np.float64], w: float, cw: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    ch2 = (chroma(diff) ** 2).sum(-1)
    if cw is not None:
        ch2 = ch2 * (cw[:, None] ** 2)
    return np.sqrt(ch2 + (w * diff.mean(-1)) ** 2)


def _distances(x: NDArray[np.float64], means: NDArray[np.float64], shift: NDArray[np.float64],
               cfg: BoardConfig, sat: NDArray[np.bool_] | None = None,
               cw: NDArray[np.float64] | None = None, glare: bool = False) -> NDArray[np.float64]:
    """(N, 3) features, (K, 3) kind means, (..., 3) shifts -> (..., N, K) distances; ``cw`` (N,)
    weighs each spot's chroma (a dark spot's log chroma is unsteady); ``glare`` as in
    :func:`_residuals`."""
    return _norm(_residuals(x, means, shift, cfg, sat, glare), cfg.luma_weight, cw)


def _chroma_cost(x: NDArray[np.float64], means: NDArray[np.float64], shifts: NDArray[np.float64],
                 cfg: BoardConfig) -> NDArray[np.float64]:
    """The squared chroma of :func:`_residuals` (no clipped channels, no glare) for zero-mean
    ``shifts`` (C, 3): ``x`` (N, 3), ``means`` (K, 3) -> (C, N, K).

    The residual's chroma is the spot's chroma less the shift, ``a``, less the kind's chroma
    ``m`` scaled by ``s``: ``|a - s m|^2 = |a|^2 + |m|^2 (s^2 - 2 s p)``, where ``p`` is ``a``
    projected on ``m`` (in units of ``m``) and ``s`` is ``p`` clipped (1 for a kind without
    chroma); each term is a product of small arrays."""
    ch_m = chroma(means)  # (K, 3)
    norm2 = (ch_m ** 2).sum(-1)  # (K,)
    chromatic = np.sqrt(norm2) >= cfg.chromatic_min
    a0 = chroma(x)  # (N, 3)
    # |a|^2 with a = a0 - shift
    aa = (a0 ** 2).sum(-1)[None, :] - 2.0 * shifts @ a0.T + (shifts ** 2).sum(-1)[:, None]  # (C, N)
    n2 = np.maximum(norm2, 1e-9)
    proj = (a0 @ ch_m.T)[None, :, :] / n2 - (shifts @ ch_m.T)[:, None, :] / n2  # (C, N, K)
    scale = np.where(chromatic, np.clip(proj, cfg.chroma_scale_min, cfg.chroma_scale_max), 1.0)
    return np.maximum(aa[:, :, None] + norm2 * (scale * scale - 2.0 * scale * proj), 0.0)


def _estimate_shift(x: NDArray[np.float64], means: NDArray[np.float64], cfg: BoardConfig,
                    prior: float, span: float, sat: NDArray[np.bool_],
                    supply: NDArray[np.float64]) -> NDArray[np.float64]:
    """Find the log-gain shift (3,) that best explains the token spots ``x`` (N, 3).

    ``sat`` (N, 3) marks clipped channels; ``supply`` (K,) is how many tokens of each kind the
    game has.
    """
    tau = cfg.reject_distance
    clear = ~sat.any(axis=1)
    xc = x[clear] if clear.sum() >= 3 else x
    best = np.zeros(3)
    for step, reach in ((span / 10.0, span), (span / 50.0, span / 10.0)):
        a = np.arange(-reach, reach + 1e-9, step)
        ga, gb = np.meshgrid(a, a)
        cands = (best + ga.ravel()[:, None] * _U1 + gb.ravel()[:, None] * _U2)  # (C, 3), zero-mean
        d2all = _chroma_cost(xc, means, cands, cfg)  # (C, N, K)
        d2 = d2all.min(-1)
        cost = np.minimum(d2, tau * tau).sum(-1) + prior * (cands ** 2).sum(-1) * len(xc)
        # a light that would put more tokens of a kind on the board than the game has is unlikely
        counts = np.eye(len(means))[d2all.argmin(-1)].sum(axis=1)  # (C, K)
        cost += np.maximum(counts - supply, 0.0).sum(-1) * tau * tau
        best = cands[int(np.argmin(cost))]
    # brightness: chromatic shift fixed, search the luma offset
    betas = np.arange(-2.0, 1.0, 0.025)
    shifts = best[None, :] + betas[:, None]
    d = _distances(x, means, shifts, cfg, sat).min(-1)  # (B, N)
    cost = np.minimum(d, tau).sum(-1)
    out = shifts[int(np.argmin(cost))]
    # refine on the assigned spots
    for _ in range(cfg.cast_iterations):
        res = _residuals(x, means, out, cfg, sat)  # (N, K, 3)
        k = _norm(res, cfg.luma_weight).argmin(-1)
        r = res[np.arange(len(x)), k]
        keep = (np.sqrt((chroma(r) ** 2).sum(-1)) < tau) & clear
        if keep.sum() < 3:
            break
        out = out + np.median(r[keep], axis=0) / (1.0 + prior)
    return out


def _refine_on_light_tokens(x: NDArray[np.float64], sat: NDArray[np.bool_], best: NDArray[np.intp],
                            ok: NDArray[np.bool_], model: TokenModel, shift: NDArray[np.float64],
                            prior: float) -> NDArray[np.float64]:
    """Re-centre the light's chroma on the white and pearl tokens.

    White and pearl differ by a small tint, about as large as the error of a cast estimated from
    the coloured tokens. The light tokens (read as W or P, not clipped) are split into pearls (the
    most tinted, at most 2 as the game has) and whites (at most 4), and the chroma shift that fits
    the best split, pulled towards the current one by ``prior`` (in tokens), is kept.
    """
    kinds = "".join(model.kinds)
    if "W" not in kinds or "P" not in kinds:
        return shift
    iw, ip = kinds.index("W"), kinds.index("P")
    light = ok & ((best == iw) | (best == ip)) & ~sat.any(axis=1)
    n = int(light.sum())
    if n == 0:
        return shift
    means = np.asarray(model.means, np.float64)
    mw = chroma(means[iw])
    v = chroma(means[ip]) - mw
    a = chroma(x[light] - shift) - mw  # (n, 3): chroma left after a white token's
    t = a @ v / max(float(v @ v), 1e-9)
    order = np.argsort(-t)
    best_cost, best_delta = np.inf, np.zeros(3)
    for j in range(min(2, n) + 1):
        lab = np.zeros(n)
        lab[order[:j]] = 1.0
        r = a - lab[:, None] * v
        delta = r.sum(axis=0) / (n + prior)
        cost = float(((r - delta) ** 2).sum() + prior * (delta ** 2).sum())
        if cost < best_cost:
            best_cost, best_delta = cost, delta
    return shift + best_delta


def light_tints(x: NDArray[np.float64], sat: NDArray[np.bool_], model: TokenModel, shift: NDArray[np.float64],
                ratio_min: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each light spot's tint between white (0) and pearl (1), and how much it tells.

    A spot with no clipped channel is measured along the white-to-pearl step of the log
    chromaticity (weight 1). A clipped channel is only a lower bound, so a spot with one clipped
    channel is measured by the log ratio of the other two alone: its weight is the share of the
    step's strength left in that ratio (the ratio's noise against the full step's), and zero when
    white and pearl differ in it by less than ``ratio_min``. A spot with two or three clipped
    channels tells nothing (weight 0).

    Parameters
    ----------
    x : (N, 3) float64 light-normalised log colours
    sat : (N, 3) bool clipped channels
    model : TokenModel, with ``W`` and ``P``
    shift : (3,) float64 the light's log-gain shift
    ratio_min : float

    Returns
    -------
    t, weight : (N,) float64 arrays
    """
    kinds = "".join(model.kinds)
    means = np.asarray(model.means, np.float64)
    mw, mp = means[kinds.index("W")], means[kinds.index("P")]
    v = chroma(mp) - chroma(mw)
    vv = max(float(v @ v), 1e-9)
    xs = x - shift
    t = (chroma(xs) - chroma(mw)) @ v / vv
    weight = np.ones(len(x))
    n_clip = sat.sum(axis=1)
    weight[n_clip >= 2] = 0.0
    for i in np.flatnonzero(n_clip == 1):
        a, b = (c for c in range(3) if not sat[i, c])
        rw, rp = mw[a] - mw[b], mp[a] - mp[b]
        if abs(rp - rw) < ratio_min:
            t[i], weight[i] = 0.0, 0.0
            continue
        t[i] = (xs[i, a] - xs[i, b] - rw) / (rp - rw)
        weight[i] = min(1.0, (rp - rw) ** 2 / (2.0 * vv))
    return t, weight


def split_light_tokens(x: NDArray[np.float64], best: NDArray[np.intp], fit: NDArray[np.bool_],
                       model: TokenModel, shift: NDArray[np.float64], prior: float,
                       pearls: int = 2, whites: int = 4, tie: float = 0.0,
                       ties: NDArray[np.bool_] | None = None, sat: NDArray[np.bool_] | None = None,
                       ratio_min: float = 0.0, common_tint: bool = True,
                       judged: NDArray[np.bool_] | None = None) -> NDArray[np.intp]:
    """Decide white against pearl jointly for the light tokens of one board.

    A pearl is a white token with a pinkish tint, a difference as small as the error of the
    light's estimate, so it is decided relative to the other light tokens: the set of pearls (at
    most 2, and at least ``n - 4``, as the game has 2 pearls and 4 whites) is chosen so that what
    is left of each light spot's chroma, less its label's (white's, or white's plus the
    white-to-pearl step), is most alike across the spots. What is left in common is the light's
    residual tint ``delta`` (a chroma vector, pulled to none by ``prior``, in tokens). Each spot is
    seen through the channels it shows: a clear spot in both chroma directions, a spot with one
    clipped channel by the log ratio of its other two (so it is judged against the ratio the clear
    spots give the light), measured in units of the white-to-pearl step; the clipped channel is a
    lower bound, so a split whose labels (plus the light's residual tint) leave such a spot's
    chroma below what that channel shows, along the direction that raises it against the other
    two, pays for the shortfall (in either mode). A spot with two clipped channels shows no
    ratio: it is judged by its two bounds alone (each clipped channel against the unclipped one),
    and when they do not decide it, a split labelling it otherwise costs the same (a tie). Such a
    spot, or one whose unclipped ratio tells little (white and pearl differing in it by less than
    ``ratio_min``; see :func:`light_tints`), takes part through its bounds; spots with three
    clipped channels keep their kind.

    Without ``common_tint`` only the light's residual tint along the white-to-pearl step is
    fitted, each spot by its tint ``t`` along that step (:func:`light_tints`) and the tint's
    weight: for a model enrolled under this very light, whose residual tint is small.

    Parameters
    ----------
    x : (N, 3) float64 light-normalised log colours of the token spots
    best : (N,) intp kinds read so far (indices into ``model.kinds``)
    fit : (N,) bool spots close enough to their kind to be read
    model : TokenModel
    shift : (3,) float64 the light's log-gain shift
    prior : float
    pearls, whites : int
        How many pearls and whites the game has left for these spots (others already read).
    tie : float
        Another split whose cost is within ``tie`` of the best makes the spots it labels
        otherwise ambiguous.
    ties : (N,) bool array, optional
        Set to True (in place) at the ambiguous spots.
    sat : (N, 3) bool array, optional
        Clipped channels (none by default).
    ratio_min : float
        See :func:`light_tints`.
    common_tint : bool
        Fit the light's residual tint as a chroma vector (True) or along the white-to-pearl
        step only.
    judged : (N,) bool array, optional
        Set to True (in place) at the spots the split judged.

    Returns
    -------
    (N,) intp array
        ``best`` with the readable white and pearl spots relabelled.
    """
    from itertools import combinations

    kinds = "".join(model.kinds)
    if "W" not in kinds or "P" not in kinds:
        return best
    iw, ip = kinds.index("W"), kinds.index("P")
    clipped = np.zeros((len(x), 3), bool) if sat is None else sat
    t_all, w_all = light_tints(x, clipped, model, shift, ratio_min)
    # a spot with one or two clipped channels takes part even when its unclipped channels tell
    # nothing: its clipped ones bound its tint from below
    n_clip = clipped.sum(axis=1)
    light = fit & ((best == iw) | (best == ip)) & ((w_all > 0) | (n_clip == 1) | (n_clip == 2))
    n = int(light.sum())
    if n == 0 or n > max(0, pearls) + max(0, whites):
        return best
    # each spot's chroma less a white token's, seen through the channels it shows: a projection
    # (3, 3) onto its measured chroma directions (both for a clear spot; the log ratio of the two
    # unclipped channels for a spot with one clipped channel)
    means = np.asarray(model.means, np.float64)
    mw = chroma(means[iw])
    v = chroma(means[ip]) - mw
    vv = max(float(v @ v), 1e-9)
    a = chroma(x[light] - shift) - mw  # (n, 3)
    flat = np.eye(3) - 1.0 / 3.0
    proj = np.empty((n, 3, 3))
    for k, i in enumerate(np.flatnonzero(light)):
        if not clipped[i].any():
            proj[k] = flat
        elif n_clip[i] == 2:
            proj[k] = 0.0
        else:
            c0, c1 = np.flatnonzero(~clipped[i])[:2]
            u = (np.eye(3)[c0] - np.eye(3)[c1]) / np.sqrt(2.0)
            proj[k] = np.outer(u, u)
    gram = proj.sum(axis=0) + prior * flat
    # a clipped channel is only a lower bound: the spot's chroma along the direction that raises
    # that channel against the other two is at least what shows (a pearl's tint that clipped its
    # red, say, is no white's); ``bound`` (n, 2, 3) holds that unit direction for each clipped
    # channel (one for a spot with one, two with two), zeros elsewhere
    bound = np.zeros((n, 2, 3))
    for k, i in enumerate(np.flatnonzero(light)):
        if n_clip[i] == 1:
            bound[k, 0] = (3.0 * clipped[i] - 1.0) / np.sqrt(6.0)
        elif n_clip[i] == 2:
            # two clipped channels: each is at least what shows against the unclipped one
            u = np.eye(3)[int(np.flatnonzero(~clipped[i])[0])]
            for j, c in enumerate(np.flatnonzero(clipped[i])):
                bound[k, j] = (np.eye(3)[c] - u) / np.sqrt(2.0)

    def below(r: NDArray[np.float64]) -> float:
        # ``r`` (n, 3): each spot's chroma as seen less what its label (and the light's tint) give
        # it; where that is positive along a bound's direction, the labels fall short of the bound:
        # the sum of the squared shortfalls
        return float((np.maximum(np.einsum("njc,nc->nj", bound, r), 0.0) ** 2).sum())

    splits: list[tuple[float, NDArray[np.float64]]] = []
    for j in range(max(0, n - max(0, whites)), min(max(0, pearls), n) + 1):
        for chosen in combinations(range(n), j):
            lab = np.zeros(n)
            lab[list(chosen)] = 1.0
            if not common_tint:
                rt = t_all[light] - lab
                wt = w_all[light]
                dt = float((wt * rt).sum()) / (float(wt.sum()) + prior)
                short = below(a - (lab + dt)[:, None] * v) / vv
                splits.append((float((wt * (rt - dt) ** 2).sum() + prior * dt ** 2) + short, lab))
                continue
            r = a - lab[:, None] * v  # (n, 3)
            # the light's residual tint (a chroma vector), common to all the light tokens, so a
            # token seen through two channels is judged against what the clear ones show of it
            delta = flat @ np.linalg.lstsq(gram, np.einsum("nij,nj->i", proj, r), rcond=None)[0]
            e = np.einsum("nij,nj->ni", proj, r - delta)
            splits.append((float((e ** 2).sum() + prior * (delta ** 2).sum() + below(r - delta)) / vv, lab))
    splits.sort(key=lambda c: c[0])
    if judged is not None:
        judged[light] = True
    out = best.copy()
    out[np.flatnonzero(light)] = np.where(splits[0][1] > 0, ip, iw)
    if ties is not None:
        # spots labelled otherwise by a split that fits about as well cannot be told apart
        for cost, lab in splits[1:]:
            if cost - splits[0][0] < tie:
                ties[np.flatnonzero(light)[lab != splits[0][1]]] = True
    return out


def assign_with_supply(d: NDArray[np.float64], supply: NDArray[np.float64]) -> NDArray[np.intp]:
    """Give each spot a kind, no kind more often than the game has tokens of it.

    Parameters
    ----------
    d : (N, K) float64 array
        Distance of each spot from each kind.
    supply : (K,) float array
        Tokens of each kind in the game.

    Returns
    -------
    (N,) intp array
        The kind of each spot minimising the summed distance; the nearest kind of each spot
        when the spots outnumber the supply (then the board is not a game board anyway).
    """
    from scipy.optimize import linear_sum_assignment

    n = d.shape[0]
    slots = np.repeat(np.arange(d.shape[1]), np.maximum(supply, 0).astype(np.intp))
    if n == 0 or len(slots) < n:
        return d.argmin(axis=1) if n else np.zeros(0, np.intp)
    rows, cols = linear_sum_assignment(d[:, slots])
    out = np.empty(n, np.intp)
    out[rows] = slots[cols]
    return out


def _clipped_light(d: NDArray[np.float64], best: NDArray[np.intp], sat: NDArray[np.bool_],
                   model: TokenModel, cfg: BoardConfig) -> NDArray[np.bool_]:
    """Light tokens (read W or P) that cannot be told apart: at least two clipped channels and
    distances ``d`` (N, K) to white and pearl within ``cfg.clipped_light_margin``; ``best`` (N,)
    kinds read, ``sat`` (N, 3) clipped channels -> (N,) bool."""
    kinds = "".join(model.kinds)
    if "W" not in kinds or "P" not in kinds:
        return np.zeros(len(best), bool)
    iw, ip = kinds.index("W"), kinds.index("P")
    light = (best == iw) | (best == ip)
    close = np.abs(d[:, iw] - d[:, ip]) < cfg.clipped_light_margin
    blind = light & (sat.sum(axis=1) >= 2) & close
    # ... unless the game's supply settles them: with both pearls (or all whites) seen clearly,
    # the other light tokens are whites (pearls)
    supply = cfg.supply
    seen_p = int((light & ~blind & (best == ip)).sum())
    seen_w = int((light & ~blind & (best == iw)).sum())
    if seen_p >= supply.count("P") or seen_w >= supply.count("W"):
        return np.zeros(len(best), bool)
    return blind


def missing_rings(ring: NDArray[np.float64], cfg: BoardConfig) -> NDArray[np.bool_]:
    """Spots whose circular edge is hidden by something reaching over the board's edge.

    Every spot of a board, token or printed empty place, shows a circular edge. A spot whose edge
    is much weaker than the board's typical one (below ``ring_missing`` of the median) is covered
    when it belongs to a 4-connected group of at least ``ring_min_group`` such spots that touches
    the board's border: a hand or an arm enters from the edge and hides several spots; a single
    blurred or glared spot does not.

    Parameters
    ----------
    ring : (5, 5) float64 array, ``SpotSamples.ring``
    cfg : BoardConfig

    Returns
    -------
    (5, 5) bool array
    """
    from scipy.ndimage import label

    med = float(np.median(ring))
    out = np.zeros((5, 5), bool)
    if med <= 0:
        return out
    groups, n = label(ring < cfg.ring_missing * med)
    for j in range(1, n + 1):
        comp = groups == j
        border = bool(comp[0].any() or comp[-1].any() or comp[:, 0].any() or comp[:, -1].any())
        if border and comp.sum() >= cfg.ring_min_group:
            out |= comp
    return out


def _hand_distance(a: NDArray[np.float64], cfg: BoardConfig) -> NDArray[np.float64]:
    """Chroma distance (N,) of light-corrected spots ``a`` (N, 3) from skin of any depth."""
    h = chroma(np.asarray(cfg.hand_chroma, np.float64))
    scale = np.clip(a @ h / float(h @ h), cfg.hand_scale[0], cfg.hand_scale[1])
    return np.sqrt(((a - scale[:, None] * h) ** 2).sum(-1))


def hand_cover(samples: SpotSamples, eps: NDArray[np.float64], light: NDArray[np.float64],
               model: TokenModel, cfg: BoardConfig) -> NDArray[np.float64]:
    """The share of each spot's disc under a hand reaching in over the board's edge.

    A hand or an arm is a large connected region of skin entering from the board's edge. On the
    board's map (``samples.board_map``), a pixel is skin when its hue, with the light divided
    out, is near skin's (:func:`_hand_distance`, with the slack a part of a spot gets: a map
    pixel is as small and as noisy), it is bright enough in the camera's range for
    its hue to mean something (``hand_map_min_brightness``) and it does not look like the board
    (``hand_board_distance`` from the board's typical colour: a board may be printed in a
    skin-like colour). Thin lines (the board's edge, a rim) are opened away
    (``hand_open_px``), and the regions that touch the map's border and cover at least
    ``hand_min_area`` of the board are hands, unless the board's own structure shows through
    them: a hand hides the spots it lies over, so inside it the spots' discs look like the
    space between them, while a glow or a glare over the board leaves the spots darker or lighter
    than the board around them (a median log brightness differing by more than
    ``hand_board_contrast``).

    Parameters
    ----------
    samples : SpotSamples
    eps : (3,) float64 log offset of each channel
    light : (3,) float64 log colour of a white token under the light
    model : TokenModel, whose colour correction (when known) gives the camera's range
    cfg : BoardConfig

    Returns
    -------
    (5, 5) float64 array in ``[0, 1]``; zeros without a board map
    """
    from scipy.ndimage import binary_opening, label

    if samples.board_map is None or samples.map_discs is None:
        return np.zeros((5, 5))
    bmap = samples.board_map
    logs = np.log(bmap + eps)
    d = _hand_distance(chroma(logs - light).reshape(-1, 3), cfg).reshape(bmap.shape[:2])
    board = np.median(np.log(samples.background + eps).reshape(-1, 3), axis=0)
    off = logs - board
    d_board = np.sqrt((chroma(off) ** 2).sum(-1) + (cfg.luma_weight * off.mean(-1)) ** 2)
    lit = model.to_camera(bmap).mean(-1) >= cfg.hand_map_min_brightness
    skin = (d < cfg.hand_distance * cfg.hand_sector_slack) & lit & (d_board > cfg.hand_board_distance)
    if cfg.hand_open_px > 1:
        skin = binary_opening(skin, np.ones((cfg.hand_open_px, cfg.hand_open_px), bool))
    groups, n = label(skin, structure=np.ones((3, 3), bool))
    hand = np.zeros(skin.shape, bool)
    discs = samples.map_discs
    spots = discs.any(axis=0).reshape(skin.shape)
    lum = logs.mean(-1)
    for j in range(1, n + 1):
        comp = groups == j
        border = bool(comp[0].any() or comp[-1].any() or comp[:, 0].any() or comp[:, -1].any())
        if not border or comp.mean() < cfg.hand_min_area:
            continue
        inside, between = lum[comp & spots], lum[comp & ~spots]
        if inside.size and between.size and \
                abs(float(np.median(inside) - np.median(between))) > cfg.hand_board_contrast:
            continue
        hand |= comp
    cover = (discs & hand.ravel()[None, :]).sum(axis=1) / np.maximum(discs.sum(axis=1), 1)
    return cover.reshape(5, 5).astype(np.float64)


def _skin_parts(parts: NDArray[np.float64], eps: NDArray[np.float64], light: NDArray[np.float64],
                cfg: BoardConfig, model: TokenModel) -> NDArray[np.bool_]:
    """Spots (25,) bool with a part that looks like skin: ``parts`` (5, 5, S, 3) BGR of the parts
    of each spot, ``eps`` (3,) the log offset, ``light`` (3,) the log colour of white under the light,
    ``model`` the token model (a part's brightness is judged in the camera's own range, before a
    correction with headroom darkened the image: :meth:`TokenModel.to_camera`)."""
    sec = parts.reshape(25, -1, 3)
    d = _hand_distance(chroma(np.log(sec + eps) - light).reshape(-1, 3), cfg).reshape(sec.shape[:2])
    near = d < cfg.hand_distance * cfg.hand_sector_slack
    return (near & (model.to_camera(sec).mean(-1) >= cfg.hand_min_brightness)).any(axis=1)


def _unclip(x: NDArray[np.float64], sat: NDArray[np.bool_], shade: NDArray[np.float64],
            eps: NDArray[np.float64], model: TokenModel,
            cfg: BoardConfig) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Read a clipped spot's hue from its less lit part.

    A bright token may clip a channel over most of its face, which hides its tint (a pearl's
    pink). The same token less lit (its curve, its rim: ``shade``) is its colour scaled down,
    the same chromaticity, and often under the clip. A spot with a clipped channel whose shade
    has none takes the shade's log chromaticity with its own brightness, and counts as unclipped.

    Parameters
    ----------
    x : (25, 3) float64 light-normalised log colours
    sat : (25, 3) bool clipped channels of the spots
    shade : (25, 3) float64 BGR (0..1) of each spot's less lit part
    eps : (3,) float64 log offset of each channel
    model : TokenModel, whose colour correction (when known) gives the clip levels
    cfg : BoardConfig

    Returns
    -------
    x, sat : the spots' colours and clipped channels, the unclipped spots replaced
    """
    shade_sat = model.clipped(shade, cfg.saturation, cfg.clip_feed)
    use = (sat.sum(axis=1) >= cfg.shade_min_clipped) & ~shade_sat.any(axis=1)
    if not use.any():
        return x, sat
    x, sat = x.copy(), sat.copy()
    ls = np.log(shade + eps)
    for i in np.flatnonzero(use):
        clear = ~sat[i]
        if not clear.any():
            x[i] = chroma(ls[i]) + x[i].mean()
        else:
            # each clipped channel from the clear ones by the shade's ratios, never below what
            # the clip let through
            ref = float((x[i, clear] - ls[i, clear]).mean())
            x[i, ~clear] = np.maximum(x[i, ~clear], ls[i, ~clear] + ref)
    sat[use] = False
    return x, sat


def glared_empty(samples: SpotSamples, eps: NDArray[np.float64], print_log: NDArray[np.float64],
                 print_edge: float, light: NDArray[np.float64], kind_colours: NDArray[np.float64],
                 cfg: BoardConfig) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """Spots that are empty places under a glare.

    A glare adds white light (the light's own colour) to whatever it falls on, so an empty place
    under it is the board's empty print, at the light of the board around it, plus white light:
    paler and brighter, and no longer like the print in log colour. A spot is such a place when
    ``a * print + b * white`` (:func:`vision.board.spots.white_mix`, the light divided out)
    explains it to within ``glare_empty_residual`` of its brightness, with the print at the light
    of the board round the spot (``a`` within ``glare_empty_light`` of the light found the same
    way, as the board's typical colour plus white light, on the board
    patches next to it), the added light at least ``glare_empty_share`` of the spot's brightness
    and the print at least ``glare_empty_print`` of it (a spot that is mostly white light is a
    white token, or a place the glare drowns), and the kind it would be read as, plus white
    light, explaining it at least ``glare_empty_margin`` times worse. White light added leaves the
    print's edges as they were, so the spot's circular edge (``samples.ring``) is at most
    ``glare_empty_ring`` times the edge of the board's clear empty places (a token's rim is
    another edge). A print of the light's own hue (closer than ``glare_empty_separation`` in log
    chromaticity) cannot be told from a white token under a glare: then no spot is.

    Parameters
    ----------
    samples : SpotSamples
    eps : (3,) float64 log offset of each channel
    print_log : (3,) float64 log colour of the empty print less the board's around it
    print_edge : the circular edge (as ``samples.ring``) of the board's clear empty places
    light : (3,) float64 linear colour of white under the light (any brightness)
    kind_colours : (25, 3) float64 linear colour of the kind each spot would be read as (any
        brightness; NaN for none)
    cfg : BoardConfig

    Returns
    -------
    glared : (25,) bool array
    residual : (25,) float64 array, what the print plus white light leaves unexplained, relative
        to the spot's brightness
    """
    bg = np.log(samples.background.reshape(25, 4, 3) + eps)
    board = np.median(bg.reshape(-1, 3), axis=0)
    printed = board + print_log
    if np.sqrt((chroma(printed - np.log(light)) ** 2).sum()) < cfg.glare_empty_separation:
        return np.zeros(25, bool), np.full(25, np.inf)
    target = samples.inner.reshape(25, 3) / light
    bright = np.maximum(target.mean(-1), 1e-9)
    base = np.broadcast_to(np.exp(printed) / light, target.shape)
    a, b, cost = white_mix(target, base)
    # the light round the spot: its board patches, each the board's colour at some light plus
    # white light (a glare brightens the patches too)
    patches = samples.background.reshape(100, 3) / light
    lit = white_mix(patches, np.broadcast_to(np.exp(board) / light, patches.shape))[0]
    local = np.median(lit.reshape(25, 4), axis=1)
    lo, hi = cfg.glare_empty_light
    edge = np.full(25, np.inf) if samples.ring is None else samples.ring.reshape(25)
    fits = ((cost <= cfg.glare_empty_residual * bright) & (edge <= cfg.glare_empty_ring * print_edge)
            & (b >= cfg.glare_empty_share * bright) & (a * base.mean(-1) >= cfg.glare_empty_print * bright)
            & (a >= lo * local) & (a <= hi * local))
    known = ~np.isnan(kind_colours).any(-1)
    kcost = np.full(25, np.inf)
    if known.any():
        kcost[known] = white_mix(target[known], kind_colours[known] / light)[2]
    return fits & (kcost >= cfg.glare_empty_margin * cost), cost / bright


def _classify_once(samples: SpotSamples, model: TokenModel,
                   cfg: BoardConfig) -> tuple[Classification, NDArray[np.bool_], NDArray[np.float64]]:
    """One reading of the spots (:func:`classify` without the glare pass), the spots (25,)
    found covered (by a hand, or anything that hides a spot's edge or splits its hue), and the
    share of each spot (25,) under a hand reaching in over the board's edge (:func:`hand_cover`)."""
    # the noise floor and the clipping level of each channel follow the colour correction the
    # image was prepared with (an enrolled model knows it)
    eps = model.channel_eps(cfg.eps)
    f = spot_features(samples, cfg, eps)
    x, e = f["x"].reshape(25, 3), f["e"].reshape(25, 3)
    bg_dev = f["bg_dev"].reshape(25, 4)
    texture = samples.texture.reshape(25)
    w = cfg.luma_weight
    letters = np.array(["?"] * 25, dtype="<U1")
    conf = np.zeros(25)
    covered = (bg_dev > cfg.background_shift_max).sum(-1) >= 2
    if samples.ring is not None:
        # ... when the spot's own circular edge is hidden too: a hand over the spot hides its
        # edge, a glare or a shadow across the board around it leaves the edge visible
        ring = samples.ring.reshape(25)
        covered &= ring < cfg.ring_missing * float(np.median(ring))
    # spots whose circular edge is hidden, in a group reaching in from the board's edge
    ringless = np.zeros(25, bool) if samples.ring is None else missing_rings(samples.ring, cfg).reshape(25)
    g = f["g"].reshape(25, 3)
    # log colours of dark spots are noisy: their distances count for less
    calm = np.clip(samples.inner.reshape(25, 3).mean(-1) / cfg.dark_reference, 1.0 / cfg.dark_tolerance, 1.0)
    flat = texture * calm < cfg.empty_texture_max
    # an empty spot also looks like the board as a whole (a hand over a spot and its corners
    # looks like its surroundings, but not like the board)
    boardlike = np.sqrt((chroma(g) ** 2).sum(-1)) * calm < cfg.empty_global_distance

    def dist(v: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.sqrt((chroma(v) ** 2).sum(-1) + (w * v.mean(-1)) ** 2) * calm

    # The board itself shows what its empty spots look like, so this needs no enrolment; an
    # enrolled ``model.empty`` is this table's own board's print of an empty spot against the
    # board around it (a ratio of two colours under one light), a sharper start when given.
    d_empty = dist(e if model.empty is None else e - np.asarray(model.empty, np.float64))
    empty = (d_empty < cfg.empty_distance) & flat & boardlike
    # every empty spot of a board is the same print: when a few are clearly empty, the others
    # must look like them. A clear one is flat too, well under the texture an empty spot may
    # show (a light token's faint emblem on a light board stays under that, and must not set
    # the print the others are held to)
    smooth = texture * calm < cfg.empty_seed_texture * cfg.empty_texture_max
    seeds = (d_empty < cfg.empty_seed_distance) & smooth & boardlike & ~covered & ~ringless
    # the printed round edge of the clear empty places (None without them, or without edges)
    edges = None if samples.ring is None else samples.ring.reshape(25)
    print_edge = float(np.median(edges[seeds])) if edges is not None and seeds.any() else None
    clustered = np.zeros(25, bool)
    if seeds.sum() >= cfg.empty_min_seeds:
        d_empty = dist(e - np.median(e[seeds], axis=0))
        empty = (d_empty < cfg.empty_cluster_distance) & flat & boardlike
        clustered = empty.copy()
    # a spot without its edge is empty only when it looks like the board's clear empty spots and
    # shows a good part of their edge (``ring_empty_keep`` of their median: a faintly printed
    # empty place); otherwise something covers it (a hand in the board's own colour hides the
    # printed edge as well as a token's)
    if clustered.any() and edges is not None and print_edge is not None:
        clustered &= edges >= cfg.ring_empty_keep * print_edge
    empty &= ~covered & (~ringless | clustered)
    # every empty place of a board is the same print, with the same faint edge: a spot that looks
    # like them but shows a much stronger round edge is a token's rim (a light token on a light
    # board under a warm lamp), when enough clear empty places show what their edge is
    if seeds.sum() >= cfg.empty_ring_seeds and edges is not None and print_edge is not None:
        empty &= ~(edges > cfg.empty_ring_max * print_edge)
    covered |= ringless & ~empty
    letters[empty] = "."
    conf[empty] = 1.0 - np.clip(d_empty[empty] / (2 * cfg.empty_distance), 0, 1) * 0.5
    tokens = ~covered & ~empty
    means = np.asarray(model.means, np.float64)
    spreads = np.asarray(model.spreads, np.float64)
    sat = model.clipped(samples.inner.reshape(25, 3), cfg.saturation, cfg.clip_feed)
    if samples.shade is not None:
        x, sat = _unclip(x, sat, samples.shade.reshape(25, 3), eps, model, cfg)
    shift = np.zeros(3)
    supply = np.array([cfg.supply.count(k) for k in model.kinds], np.float64)
    if tokens.sum() >= 1:
        if model.calibrated:
            prior, span = cfg.calibrated_prior_weight, 0.3
        else:
            prior, span = cfg.cast_prior_weight, 1.2
        shift = _estimate_shift(x[tokens], means, cfg, prior, span, sat[tokens], supply)
        if model.calibrated and cfg.calibrated_neutral_light:
            # the model was learnt under this very light: only its brightness changes
            shift = np.full(3, float(shift.mean()))
    # an empty place that no other empty place vouches for (outside the board's cluster of clear
    # empty places) and that fits a token's kind better than the print is that token (a light
    # token on a light board)
    lone_mask = empty & ~clustered
    if seeds.any():
        # ... and so is one the clear empty places vouch for only loosely: it differs from them
        # in colour and shows much more texture than they do (a light token's faint emblem)
        seed_texture = float(np.median((texture * calm)[seeds]))
        lone_mask |= (empty & ~seeds & (d_empty > cfg.empty_doubt_distance)
                      & (texture * calm > seed_texture + cfg.empty_doubt_texture))
    lone = np.flatnonzero(lone_mask)
    if lone.size and tokens.any():
        cw_lone = np.clip(samples.inner.reshape(25, 3)[lone].mean(-1) / cfg.dark_reference,
                          cfg.dark_chroma_weight, 1.0)
        d_kind = _distances(x[lone], means, shift, cfg, sat[lone], cw_lone).min(axis=1)
        moved = lone[d_kind < d_empty[lone]]
        empty[moved] = False
        tokens[moved] = True
        letters[moved] = "?"
    # a spot whose parts differ in hue under this light is partly covered; the light's colour is
    # that of a white token
    white = means[list(model.kinds).index("W")] if "W" in model.kinds else np.zeros(3)
    light = np.exp(chroma(shift + white))
    # (a glare that clipped a channel of a part is judged by the part's other channels)
    sec_clip = model.clipped(samples.sectors, cfg.saturation, cfg.clip_feed)
    sector_dev = sector_deviation(samples, cfg, light, clipped=sec_clip).reshape(25)
    # ... by a hand when a deviating part looks like skin, by anything when the parts differ a lot
    skin = _skin_parts(samples.sectors, eps, shift + white, cfg, model)
    part = ((sector_dev > cfg.sector_spread_max) & skin) | (sector_dev > cfg.sector_spread_hard)
    if cfg.rim_enabled and samples.rim is not None:
        # a finger over the edge of a token: a skin-coloured part of the ring round the spot's
        # centre, of another hue than the spot
        rim_clip = model.clipped(samples.rim, cfg.saturation, cfg.clip_feed)
        rim_dev = sector_deviation(samples, cfg, light, samples.rim, rim_clip).reshape(25)
        rim_skin = _skin_parts(samples.rim, eps, shift + white, cfg, model)
        part |= (rim_dev > cfg.sector_spread_max) & rim_skin & ~empty
    # ... and by a hand reaching in over the board's edge when a hand region covers enough of it
    reach = hand_cover(samples, eps, shift + white, model, cfg).reshape(25)
    part |= reach >= cfg.hand_cover_min
    letters[part] = "?"
    conf[part] = 0.0
    hidden = covered | part
    tokens &= ~part
    if tokens.sum() >= 1:
        bright = samples.inner.reshape(25, 3)[tokens].mean(-1)
        # brightness gates (is a spot bright enough for its hue to mean skin?) are in the camera's
        # own range: a correction scaled to keep its highlights darkens the whole image
        lit = model.to_camera(samples.inner.reshape(25, 3)[tokens]).mean(-1)
        cw = np.clip(bright / cfg.dark_reference, cfg.dark_chroma_weight, 1.0)
        d = _distances(x[tokens], means, shift, cfg, sat[tokens], cw)  # (N, K)
        first = d.argmin(axis=1)
        # skin is no token: a spot that looks more like a hand than like any kind is covered, and
        # takes no part in the joint decisions below (its tint would pass for a pearl's)
        d_hand = _hand_distance(chroma(x[tokens] - shift - white), cfg)
        d_first = d[np.arange(len(d)), first]
        hand = (d_hand < cfg.hand_distance) & (d_hand < d_first) & (lit >= cfg.hand_min_brightness)
        fits = (d_first <= cfg.reject_distance + cfg.spread_weight * spreads[first]) & ~hand
        prior = cfg.calibrated_light_prior if model.calibrated else cfg.light_prior
        if not (model.calibrated and cfg.calibrated_neutral_light):
            # the light tokens' common tint is the light's: a spot that fits white or pearl and
            # shows its own circular edge (a hand hides it) joins them even when it looks like
            # skin under the light the coloured tokens gave, and is a hand only if it still does
            # under the light refined on them all
            maybe = np.zeros(len(fits), bool)
            if samples.ring is not None:
                ring = samples.ring.reshape(25)[tokens]
                edged = ring >= cfg.light_hand_ring * float(np.median(samples.ring))
                light_kind = np.isin(first, [i for i, k in enumerate(model.kinds) if k in "WP"])
                near = d_first <= cfg.reject_distance + cfg.spread_weight * spreads[first]
                maybe = hand & edged & light_kind & near
            shift = _refine_on_light_tokens(x[tokens], sat[tokens], first, fits | maybe, model, shift, prior)
            if maybe.any():
                d_hand = _hand_distance(chroma(x[tokens] - shift - white), cfg)
                d_near = _distances(x[tokens], means, shift, cfg, sat[tokens], cw).min(axis=1)
                still = (d_hand < cfg.hand_distance) & (d_hand < d_near) & (lit >= cfg.hand_min_brightness)
                hand = np.where(maybe, still, hand)
        d = _distances(x[tokens], means, shift, cfg, sat[tokens], cw)
        order = np.argsort(d, axis=1)
        best = order[:, 0]
        fit = (d[np.arange(len(d)), best] <= cfg.reject_distance + cfg.spread_weight * spreads[best]) & ~hand
        # the board holds at most the game's tokens of each kind: the readable spots are assigned
        # jointly, so a fifth "white" goes to the kind it resembles next (a pearl, typically)
        best[fit] = assign_with_supply(d[fit], supply)
        # white against pearl, jointly over the light tokens; a clipped channel hides part of a
        # light token's tint, so such a token is told by its other two channels
        tied = np.zeros(len(best), bool)
        judged = np.zeros(len(best), bool)
        best = split_light_tokens(x[tokens], best, fit, model, shift, prior, pearls=cfg.supply.count("P"),
                                  whites=cfg.supply.count("W"), tie=cfg.split_tie, ties=tied, sat=sat[tokens],
                                  ratio_min=cfg.clip_ratio_min, common_tint=not model.calibrated,
                                  judged=judged)
        d1 = d[np.arange(len(d)), best]
        d2 = np.where(np.arange(d.shape[1])[None, :] == best[:, None], np.inf, d).min(axis=1)
        limit = cfg.reject_distance + cfg.spread_weight * spreads[best]
        kinds = np.array(list(model.kinds))[best]
        far = d1 > limit
        # a glare (white light added) pales a token: a spot too far from every kind that fits
        # its nearest kind once paled as much as it is lifted, and no other kind better, is it
        dg = _distances(x[tokens], means, shift, cfg, sat[tokens], cw, glare=True)
        paled = far & (dg.argmin(axis=1) == best) & (dg[np.arange(len(dg)), best] <= limit)
        far &= ~paled
        kinds[far] = "?"
        # white against pearl needs two unclipped channels: with fewer, when the two kinds fit
        # about equally, the spot is unknown rather than a guess (unless the split judged it by
        # its clipped channels' bounds). A spot another split labels otherwise about as well keeps
        # the best split's kind, with no confidence: a doubtful reading, not an unknown spot
        blind = _clipped_light(d, best, sat[tokens], model, cfg) & ~judged
        kinds[blind] = "?"
        d_hand = _hand_distance(chroma(x[tokens] - shift - white), cfg)
        hand |= (d_hand < cfg.hand_distance) & (d_hand < d1) & (lit >= cfg.hand_min_brightness)
        kinds[hand] = "?"
        # a flat, board-coloured spot that looks more like this board's empty print than like
        # the token it would be read as is empty (a dim or tinted empty place missed above)
        de = d_empty[tokens]
        back = flat[tokens] & boardlike[tokens] & (de < d1) & (de < cfg.empty_distance) & ~hand
        kinds[back] = "."
        # ... and one under a glare, paled by the white light added to it, like the board's clear
        # empty places in all but that light
        glared = np.zeros(len(kinds), bool)
        residual = np.full(25, np.inf)
        if seeds.sum() >= cfg.empty_min_seeds and edges is not None and print_edge is not None:
            colours = np.full((25, 3), np.nan)
            colours[np.flatnonzero(tokens)] = np.exp(means[best] + shift)
            found, residual = glared_empty(samples, eps, np.median(e[seeds], axis=0), print_edge,
                                           np.exp(shift + white), colours, cfg)
            # a glare pales a skin-coloured print (a wood board's) to skin's hue, so the spot's
            # own hue is no sign of a hand when the print plus white light explains it and the
            # print's edge shows (a hand hides it); a hand reaching in is found on the board's map
            edged = edges[tokens] >= cfg.glare_hand_edge * print_edge
            glared = found[tokens] & ~(hand & ~edged) & ~blind & ~back
        kinds[glared] = "."
        letters[tokens] = kinds
        d1 = np.where(paled, dg[np.arange(len(dg)), best], d1)
        c = (1.0 - np.exp(-np.maximum(d2 - d1, 0.0) / cfg.confidence_scale)) * np.clip(1.0 - d1 / limit, 0, 1)
        c[hand | blind | far | tied] = 0.0
        c[back] = 1.0 - np.clip(de[back] / (2 * cfg.empty_distance), 0, 1) * 0.5
        c[glared] = 1.0 - np.clip(residual[tokens][glared] / cfg.glare_empty_residual, 0, 1) * 0.5
        conf[tokens] = c
        hidden[np.flatnonzero(tokens)[hand]] = True
    # an empty place beside a hidden spot that shows under ``ring_empty_keep`` of the clear empty
    # places' printed edge lies under the same hand (one in the board's own colour)
    if seeds.sum() >= cfg.empty_min_seeds and edges is not None and print_edge is not None:
        hid = _hidden_beside(hidden, (letters == ".") & (edges < cfg.ring_empty_keep * print_edge))
        letters[hid] = "?"
        conf[hid] = 0.0
        hidden |= hid
    cells = tuple("".join(letters[r * 5:(r + 1) * 5]) for r in range(5))
    return Classification(cells=cells, confidence=conf.reshape(5, 5), shift=shift), hidden, reach


def _hidden_beside(hidden: NDArray[np.bool_], open_: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The spots of ``open_`` (25,) bool reached from a ``hidden`` (25,) bool spot through
    side-by-side ``open_`` spots, as (25,) bool.

    A hand in the board's own colour over an empty place looks like the board, flat and of the
    print's colour, but it hides the place's printed edge as it hides a token's. So an empty
    place that shows much less of that edge than the board's clear empty places (``open_``), next
    to a spot a hand or something else hides, lies under the same hand.
    """
    from scipy.ndimage import label

    groups, _ = label((hidden | open_).reshape(5, 5))  # side by side (4-connected)
    reached = np.isin(groups, groups.reshape(25)[hidden]) & (groups > 0)
    return reached.reshape(25) & open_ & ~hidden


def _patch_light(samples: SpotSamples, eps: NDArray[np.float64],
                 light: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each board patch (100,) explained as the board's typical colour at some light ``a`` plus
    white light ``b`` (:func:`vision.board.spots.white_mix`, in units of ``light``)."""
    bg = samples.background.reshape(100, 3)
    board = np.maximum(np.exp(np.median(np.log(bg + eps), axis=0)) - eps, 0.0)
    a, b, _ = white_mix(bg / light, np.broadcast_to(board / light, bg.shape))
    return a, b


def board_glare(samples: SpotSamples, eps: NDArray[np.float64], light: NDArray[np.float64],
                cfg: BoardConfig) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """White light added over each spot by a glare, as the board patches round it show it.

    A glare adds white light (the light's own colour) to the board and to the tokens on it
    alike. Each board patch is explained as the board's typical colour at some light plus white
    light (:func:`vision.board.spots.white_mix`, the light divided out); its white share counts
    as glare only when the rest is the board at about the light of the board as a whole (at
    least ``deglare_light_min`` of the patches' median: a patch that is mostly white is another
    object, or a clipped one). The patches sit on a 6x6 lattice between the spots. A glare is
    a smooth blob: where at least ``deglare_fit_points`` lattice points show white light (at
    least ``deglare_min``), the log of the light there is fitted with a round blob (a quadratic
    in the lattice position with equal curvature across and down, which must fall off), and each
    spot with at least one such patch takes the blob's light at its centre, at most
    ``deglare_peak_max`` times the most any point shows. Without such a fit, or such a patch, a
    spot takes the mean of its four patches.

    Parameters
    ----------
    samples : SpotSamples
    eps : (3,) float64 log offset of each channel
    light : (3,) float64 linear colour of white under the light (any brightness)
    cfg : BoardConfig

    Returns
    -------
    patches : (5, 5, 4) float64, the white light on each board patch, in units of ``light``
    spots : (5, 5) float64, the white light over each spot, in units of ``light``
    """
    a, b = _patch_light(samples, eps, light)
    b = np.where(a >= cfg.deglare_light_min * float(np.median(a)), b, 0.0).reshape(5, 5, 4)
    spots = b.mean(axis=-1)
    # the lattice point of each patch: patches 0..3 lie up-left, up-right, down-right, down-left
    at = (np.broadcast_to(np.arange(5)[:, None, None] + np.array([0, 0, 1, 1]), b.shape),
          np.broadcast_to(np.arange(5)[None, :, None] + np.array([0, 1, 1, 0]), b.shape))
    total, count = np.zeros((6, 6)), np.zeros((6, 6))
    np.add.at(total, at, b)
    np.add.at(count, at, 1.0)
    lat = total / count
    lit = lat >= cfg.deglare_min
    if int(lit.sum()) >= cfg.deglare_fit_points:
        ii, jj = np.nonzero(lit)
        design = np.stack([np.ones(len(ii)), ii, jj, ii ** 2 + jj ** 2], axis=1).astype(np.float64)
        w = lat[lit]
        coef = np.linalg.lstsq(design * w[:, None], np.log(w) * w, rcond=None)[0]
        if coef[3] < 0:
            ci, cj = np.mgrid[0:5, 0:5] + 0.5
            blob = np.exp(coef[0] + coef[1] * ci + coef[2] * cj + coef[3] * (ci ** 2 + cj ** 2))
            # a glare over a spot lights some of the board patches round it too: a spot whose
            # patches show none keeps their mean (lit patches in two places, a glare and a pale
            # object, make a broad blob over the board between them)
            near = (b >= cfg.deglare_min).any(axis=-1)
            spots = np.where(near, np.minimum(blob, cfg.deglare_peak_max * float(lat.max())), spots)
    return b, spots


def _less_light(samples: SpotSamples, patches: NDArray[np.float64], spots: NDArray[np.float64],
                light: NDArray[np.float64]) -> SpotSamples:
    """``samples`` with the white light of a glare (:func:`board_glare`) taken away; colours
    stay above a small floor."""
    floor = 1.0 / 255.0

    def less(v: NDArray[np.float64] | None, g: NDArray[np.float64]) -> NDArray[np.float64] | None:
        return None if v is None else np.maximum(v - g[..., None] * light, floor)

    parts = spots[..., None]
    return replace(samples, inner=less(samples.inner, spots), sectors=less(samples.sectors, parts),
                   rim=less(samples.rim, parts), shade=less(samples.shade, spots),
                   background=less(samples.background, patches))


def classify(samples: SpotSamples, model: TokenModel, cfg: BoardConfig) -> Classification:
    """Classify the spots of one board.

    A glare may lift a dark token to a light one's brightness, or pale a coloured one past
    every kind. Where the board patches show white light added (:func:`board_glare`, at least
    ``deglare_min`` of a white token's brightness) the spots are read again with that light
    taken away; a spot read as a token kind in that second reading takes it when the first
    reading was not empty, found the spot not covered, and was less confident, and when the
    second reading's confidence is at least ``deglare_confidence_min``. A spot the first reading
    left unknown (the glare took it past every kind, paled an empty place to skin's hue, or split
    its parts in hue) takes the second reading, empty place or token, when that reading finds it
    uncovered and is no doubtful guess (at least ``doubtful_confidence``), no part of the spot is
    clipped when that reading is an empty place or a black token, and a hand reaching in over the
    board's edge covers at most ``deglare_hand_max`` of it. A doubtful white under a glare may be a
    black token (:func:`glared_black`).

    Parameters
    ----------
    samples : SpotSamples
    model : TokenModel
        Default colours or an enrolled model (``calibrated``: learned under this light).
    cfg : BoardConfig

    Returns
    -------
    Classification
    """
    first, hidden, reach = _classify_once(samples, model, cfg)
    if not cfg.deglare_min > 0 or "W" not in model.kinds:
        return first
    eps = model.channel_eps(cfg.eps)
    white = np.asarray(model.means, np.float64)[list(model.kinds).index("W")]
    light = np.exp(first.shift + white)
    patches, spots = board_glare(samples, eps, light, cfg)
    if float(spots.max()) < cfg.deglare_min:
        return first
    second, hidden2, _ = _classify_once(_less_light(samples, patches, spots, light), model, cfg)
    a, b = np.array([list(r) for r in first.cells]), np.array([list(r) for r in second.cells])
    lit = (spots >= cfg.deglare_min) & (second.confidence >= cfg.deglare_confidence_min)
    take = ((a != b) & (a != ".") & ~np.isin(b, [".", "?"]) & ~hidden.reshape(5, 5)
            & lit & (second.confidence > first.confidence))
    # a spot the glare made unreadable (too far from every kind, paled to skin's hue, or split
    # in hue) that the second reading finds uncovered takes that reading, empty place or token,
    # unless a hand reaching in over the board's edge touches it, or a part of the spot is clipped
    # and the reading is an empty place or a black token (a clipped channel only bounds the light
    # it shows: the light taken away from it leaves too little, and a drowned light token would
    # pass for either)
    clipped = model.clipped(samples.sectors, cfg.saturation, cfg.clip_feed).any(axis=(-1, -2))
    take |= ((a == "?") & (b != "?") & ~hidden2.reshape(5, 5) & lit & ~(clipped & np.isin(b, [".", "K"]))
             & (second.confidence >= cfg.doubtful_confidence) & (reach.reshape(5, 5) <= cfg.deglare_hand_max))
    letters = np.where(take, b, a)
    confidence = np.where(take, second.confidence, first.confidence)
    black = glared_black(samples, letters, confidence, spots, light, eps, model, cfg) & ~clipped
    letters[black] = "K"
    if not (take.any() or black.any()):
        return first
    cells = tuple("".join(r) for r in letters)
    return Classification(cells=cells, confidence=confidence, shift=first.shift)


def glared_black(samples: SpotSamples, letters: NDArray[np.str_], confidence: NDArray[np.float64],
                 spots: NDArray[np.float64], light: NDArray[np.float64], eps: NDArray[np.float64],
                 model: TokenModel, cfg: BoardConfig) -> NDArray[np.bool_]:
    """Doubtful whites under a glare that are black tokens.

    White and black differ in brightness alone, and a glare adds white light: a black token under
    it is a grey, which the log colours may put nearer white than black. But a glare only adds
    light, so a white token under it shows at least its own brightness. A spot read white with
    less than ``doubtful_confidence``, under a glare of at least ``deglare_black_min`` of a white
    token's brightness (:func:`board_glare`), is black when it shows less than
    ``deglare_white_floor`` of a white token's brightness at the light of the board patches round
    it.

    Parameters
    ----------
    samples : SpotSamples
    letters : (5, 5) str array, the reading so far
    confidence : (5, 5) float64 array, its confidence
    spots : (5, 5) float64 array, the glare's white light over each spot, in units of ``light``
    light : (3,) float64 linear colour of a white token under the light
    eps : (3,) float64 log offset of each channel
    model : TokenModel
    cfg : BoardConfig

    Returns
    -------
    (5, 5) bool array
    """
    if "K" not in model.kinds:
        return np.zeros((5, 5), bool)
    # the light over each spot, from its patches, relative to the board's typical light
    lit = _patch_light(samples, eps, light)[0]
    local = np.median(lit.reshape(5, 5, 4), axis=-1) / max(float(np.median(lit)), 1e-9)
    shown = (samples.inner / light).mean(-1)
    return ((letters == "W") & (confidence < cfg.doubtful_confidence) & (spots >= cfg.deglare_black_min)
            & (shown < cfg.deglare_white_floor * local))
