"""The files a GitHub Actions step reports through: the job summary (Markdown) and the
step outputs (``key=value``). One place for drift, conformance and the pull request review."""

from __future__ import annotations

from collections.abc import Mapping


def append_step_files(env: Mapping[str, str], summary_markdown: str, step_outputs: Mapping[str, str]) -> None:
    """Append to the job summary and the step outputs, where the run names those files
    (``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``); outside Actions, nothing."""
    summary_file = env.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(summary_markdown + "\n")
    output_file = env.get("GITHUB_OUTPUT")
    if output_file:
        with open(output_file, "a", encoding="utf-8") as handle:
            for key, value in step_outputs.items():
                handle.write(f"{key}={value}\n")
