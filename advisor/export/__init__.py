"""Recommendations as shareable files."""
