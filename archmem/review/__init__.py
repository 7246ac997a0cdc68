"""Reviewing a change: what a pull request touches, what it makes VERIFY, what it
changes in the team's memory, and the one comment that says so."""
