"""The knowledge base: Markdown entries with YAML front matter, and the lexicon the matcher uses."""
