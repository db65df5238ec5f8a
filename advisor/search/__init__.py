"""Finding the entry that answers a question: analysis, the packed on-disk index, ranking, suggestions."""
