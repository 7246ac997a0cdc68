"""Git adapters beyond the streamed history: what git says between two revisions."""
