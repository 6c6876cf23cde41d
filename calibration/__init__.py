"""Per-table calibration: fiducial sheet, table homography, colour correction, token
enrolment, seat zones and saved profiles."""
