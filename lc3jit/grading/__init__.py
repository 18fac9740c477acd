"""Grading LC-3 programs: readable failures, calling conventions, observation, scores, reports."""
