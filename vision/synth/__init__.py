"""Seeded synthetic table photos with exact truth, for tests, benchmarks and the demo.

:mod:`vision.synth.camera` is the shared camera and light core; the other modules draw card
faces, dry-erase marks, expedition cards and whole Silver & Gold scenes on top of it.
"""
