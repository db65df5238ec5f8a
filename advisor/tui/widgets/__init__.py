"""Reusable widgets of the TUI, one class per module."""
