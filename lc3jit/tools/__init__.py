"""The tools built on running programs: benchmarks, block dumps, the debugger, traces, and
the pytest plugin for graders."""
