"""The decision tree, the guided session over it, and the recommendation its rules give."""
