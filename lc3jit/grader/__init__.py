"""Grading fronts over lc3jit.grading: the pytest plugin and `lc3jit grade` for a class."""
