"""The TUI's screens and dialogs, one class per module, each styled by the `.tcss` beside it."""
