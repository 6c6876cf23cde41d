"""Image in, typed result out: frame sources, the Silver & Gold card reader, the Splendor Duel
board reader, temporal tracking, overlays and a synthetic scene renderer.

Nothing here imports Flask, and no stage draws or displays anything; overlays come from the
separate ``draw_*`` functions.
"""
