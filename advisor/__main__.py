"""`python -m advisor` runs the same entry point as the `advisor` script."""

from advisor.cli import run

run()
