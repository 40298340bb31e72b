"""Measuring the tutor: evaluation and calibration on labelled questions, and the speed bench."""
