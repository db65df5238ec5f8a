"""The Textual app (`advisor` on a terminal, `advisor tui`): chat, entry viewer and guided wizard.

The package root imports nothing, so importing `advisor.tui.settings` or the pure helpers does not
load Textual; only `advisor.tui.app` and the screen and widget modules do.
"""
