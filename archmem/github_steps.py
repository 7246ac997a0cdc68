"""The files a GitHub Actions step reports through: the job summary (Markdown) and the
step outputs. One place for drift, conformance and the pull request review.

A step output is ``key=value`` on one line. A value that holds a line break (an
``html_url`` a server made up, a name from a file) would end that line and forge the
next, so it is written in GitHub's multi-line form, ``key<<DELIMITER``, value,
``DELIMITER``, with a random delimiter the value does not contain.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping

from archmem.errors import InvalidInputError

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def append_step_files(env: Mapping[str, str], summary_markdown: str, step_outputs: Mapping[str, str]) -> None:
    """Append to the job summary and the step outputs, where the run names those files
    (``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``); outside Actions, nothing."""
    summary_file = env.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(summary_markdown + "\n")
    output_file = env.get("GITHUB_OUTPUT")
    if output_file:
        text = "".join(step_output(key, value) for key, value in step_outputs.items())
        with open(output_file, "a", encoding="utf-8") as handle:
            handle.write(text)


def step_output(key: str, value: str) -> str:
    """One output as ``GITHUB_OUTPUT`` reads it: ``key=value``, or the delimited form for
    a value with a line break in it."""
    if not _KEY.fullmatch(key):
        raise InvalidInputError(f"{key!r} is not a step output name")
    if "\n" not in value and "\r" not in value:
        return f"{key}={value}\n"
    delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    while delimiter in value:  # pragma: no cover - 128 random bits
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    return f"{key}<<{delimiter}\n{value}\n{delimiter}\n"
