"""The provider catalogue: which cloud GPU providers offer what, each fact sourced and dated."""
