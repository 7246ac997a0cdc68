"""``--format sarif`` and ``--format codequality``, shared by ``conformance``, ``drift``
and ``check``: the command's findings (``archmem.reporting.findings``) printed as JSON
in the format asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from archmem.cli import emit_json

if TYPE_CHECKING:
    from archmem.reporting.findings import Findings

REPORT_FORMATS = ("sarif", "codequality")
REPORT_HELP = ("sarif: SARIF 2.1.0 for GitHub code scanning; codequality: a GitLab Code Quality report "
               "(both on stdout)")


def emit_report(findings: Findings, output_format: str) -> None:
    """Print ``findings`` as a SARIF log or a GitLab Code Quality report."""
    if output_format == "sarif":
        from archmem import __version__
        from archmem.reporting.sarif import sarif_log

        emit_json(sarif_log(findings, version=__version__))
    else:
        from archmem.reporting.codequality import code_quality

        emit_json(code_quality(findings))
