"""``archmem drift --format github``: a job summary in Markdown, step
outputs, and ``::warning`` annotations at each drifted element's line in the model (and
one for each warning of the report, such as an accept file that did not count).

Element names and memory titles come from the repository, so the summary shows them
inert (``escape.markdown_inline``) and with every ``|`` escaped, so a name can neither
add HTML to the job page nor end its table cell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archmem.ci.github import append_step_files
from archmem.drift.report import DriftReport
from archmem.escape import markdown_code, markdown_inline
from archmem.escape import workflow_command as _escape
from archmem.words import plural

OUTPUTS = ("drift-score", "total-elements", "drifted-elements", "missing-elements", "stale-memories",
           "documented-elements")


def outputs(report: DriftReport) -> dict[str, str]:
    counts = report.counts()
    return {
        "drift-score": "" if report.score is None else str(report.score),
        "total-elements": str(counts["total_elements"]),
        "drifted-elements": str(counts["drifted"]),
        "missing-elements": str(counts["missing"]),
        "stale-memories": str(counts["stale_memories"]),
        "documented-elements": str(counts["documented_elements"]),
    }




def drift_annotations(report: DriftReport, root: Path) -> list[str]:
    lines = []
    for element in report.elements:
        if element.status not in ("drifted", "missing") or element.stamp is None:
            continue
        stamp = element.stamp
        if element.status == "drifted":
            text = (f"{element.name} drifted since the model described it: {plural(stamp.lines, 'line')} in "
                    f"{plural(stamp.commits, 'commit')} ({stamp.commit[:7]}); "
                    f"update the model or run archmem drift accept {element.id}")
        else:
            text = f"{element.name}'s code is gone: its last file was removed in {stamp.commit[:7]}"
        file = element.model_file(root)
        where = f" file={_escape(file, property=True)},line={element.line or 1}" if file else ""
        lines.append(f"::warning{where},title={_escape('archmem drift', property=True)}::{_escape(text)}")
    if not report.no_commits:  # accept files that did not count, or counted from their time
        lines += [f"::warning title={_escape('archmem drift', property=True)}::{_escape(text)}"
                  for text in report.warnings]
    return lines


def churn(stamp: Any) -> str:
    return f"{plural(stamp.lines, 'line')}, {plural(stamp.files, 'file')}, {plural(stamp.commits, 'commit')}"


def summary(report: DriftReport) -> str:
    if report.no_commits:
        return f"## archmem drift: not measured\n\n{report.warnings[0][:1].upper()}{report.warnings[0][1:]}.\n"
    counts = report.counts()
    out = [
        f"## archmem drift: {'not measured' if report.score is None else f'{report.score}/100'}",
        "",
        f"{counts['in_sync']} in sync, {counts['drifted']} drifted, {counts['missing']} missing, "
        f"{counts['not_measured']} not measured (no paths), {counts['external']} outside the code; "
        f"{counts['documented_elements']} of {counts['total_elements']} "
        f"elements documented; {plural(counts['stale_memories'], 'memory', 'memories')} to verify.",
        "",
    ]
    note = report.not_measured_note()
    if note:
        out += [f"**{note[:1].upper()}{note[1:]}.**", ""]
    changed = [e for e in report.elements if e.status in ("drifted", "missing")]
    if changed:
        out += ["| element | status | since | stamp | churn | size |", "|---|---|---|---|---|---|"]
        for e in changed:
            stamp = e.stamp
            out.append(
                f"| {_cell(markdown_inline(e.name))} ({_cell(markdown_code(e.id))}) | {e.status} | "
                f"{e.since.date() if e.since else '—'} | "
                f"{stamp.commit[:7] + ' ' + str(stamp.time.date()) if stamp else '—'} | "
                f"{churn(stamp) if stamp else '—'} | {plural(e.size.files, 'file')}, {plural(e.size.lines, 'line')} |"
            )
        out.append("")
    if report.stale:
        out += ["### Memories to verify", ""]
        for memory, staleness in report.stale:
            label = markdown_inline(memory.title or memory.id)
            out.append(f"- **{label}** [{memory.kind.upper()}]: {markdown_inline(staleness.reason)}")
        out.append("")
    return "\n".join(out)


def _cell(markdown: str) -> str:
    """Markdown for a table cell: a ``|`` in it is escaped (GFM splits cells first)."""
    return markdown.replace("|", "\\|")


def write_github(report: DriftReport, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """Append the summary and outputs to the files GitHub names; return what was written."""
    written: dict[str, Any] = {"annotations": drift_annotations(report, root), "outputs": outputs(report)}
    append_step_files(env, summary(report), written["outputs"])
    return written
