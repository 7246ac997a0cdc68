"""GitLab Code Quality JSON (a ``codequality`` report artifact): one issue per finding
with GitLab's fields (description, check_name, fingerprint, severity, location.path,
location.lines.begin), which the merge request widget compares between the base and
the head by fingerprint."""

from __future__ import annotations

from typing import Any

from archmem.reporting.findings import Findings

SEVERITY = {"error": "major", "warning": "minor", "note": "info"}
"""archmem's levels to GitLab's (info, minor, major, critical, blocker)."""


def code_quality(findings: Findings) -> list[dict[str, Any]]:
    """The report as JSON-ready data: a list of issues."""
    return [
        {
            "type": "issue",
            "description": finding.message,
            "check_name": finding.rule.id,
            "fingerprint": fingerprint,
            "severity": SEVERITY[finding.severity],
            "location": {"path": finding.location.path, "lines": {"begin": max(finding.location.line, 1)}},
        }
        for finding, fingerprint in zip(findings.items, findings.fingerprints(), strict=True)
    ]
