"""SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format), the format GitHub code
scanning reads: one run per command, its rules in the driver, each finding a result at
its file and line with a stable ``partialFingerprints`` entry.

Paths stay relative to the repository root (``uriBaseId`` ``%SRCROOT%``): a log never
holds the absolute path of the machine that wrote it, and code scanning resolves them
against the checkout. ``automationDetails.id`` names the command, so the logs of
``conformance``, ``drift`` and ``check`` upload side by side as three categories.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from archmem.reporting.findings import Finding, Findings, Location, Rule

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT = "archmemFinding/v1"
"""The ``partialFingerprints`` key: bump its version when a finding's key changes meaning."""
INFORMATION_URI = "https://github.com/archmem/archmem"


def sarif_log(findings: Findings, *, version: str) -> dict[str, Any]:
    """The whole log as JSON-ready data."""
    index = {rule.id: number for number, rule in enumerate(findings.rules)}
    results = [_result(finding, index[finding.rule.id], fingerprint)
               for finding, fingerprint in zip(findings.items, findings.fingerprints(), strict=True)]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "archmem", "version": version, "semanticVersion": version,
            "informationUri": INFORMATION_URI,
            "rules": [_rule(rule) for rule in findings.rules],
        }},
        "automationDetails": {"id": f"archmem/{findings.command}/"},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if findings.frozen:  # left out, as in every format: code scanning closes them like fixed ones
        run["properties"] = {"frozenByBaseline": findings.frozen}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [run],
    }


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.help},
        "help": {"text": rule.help, "markdown": rule.help},
        "defaultConfiguration": {"level": rule.level},
    }


def _result(finding: Finding, rule_index: int, fingerprint: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule.id,
        "ruleIndex": rule_index,
        "level": finding.severity,
        "message": {"text": finding.message},
        "locations": [_location(finding.location)],
        "partialFingerprints": {FINGERPRINT: fingerprint},
    }
    if finding.related:
        result["relatedLocations"] = [
            {"id": number, **_location(place), "message": {"text": f"changed: {place.path}"}}
            for number, place in enumerate(finding.related, start=1)
        ]
    return result


def _location(place: Location) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(place.line, 1)}
    if place.column:
        region["startColumn"] = max(place.column, 1)
    return {"physicalLocation": {
        "artifactLocation": {"uri": quote(place.path), "uriBaseId": "%SRCROOT%"},
        "region": region,
    }}
