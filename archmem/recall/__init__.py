"""Recall: rank the memories that matter for a task."""
