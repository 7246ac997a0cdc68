"""Rendering: Jinja2 templates for briefings (and, next, the knowledge map)."""
