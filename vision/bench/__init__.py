"""Accuracy and speed benchmarks on seeded generated scenes.

:mod:`vision.bench.common` holds the helpers every benchmark shares; each reader has its own
module (:mod:`vision.bench.cards` for the Silver & Gold map cards).
"""
