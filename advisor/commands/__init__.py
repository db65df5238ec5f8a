"""One module per command family; each exposes `add_parser(subparsers)` and sets `run`."""
