"""The web layer and command line: a thin shell over vision, calibration and scoring."""
