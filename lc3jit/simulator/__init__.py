"""The Simulator's parts; import it from lc3jit.api, which puts them together."""
