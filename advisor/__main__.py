"""`python -m advisor` runs the same entry point as the `advisor` script."""

from advisor.cli import main

raise SystemExit(main())
