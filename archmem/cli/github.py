"""GitHub Actions glue shared by ``drift`` and ``pr`` with ``--format github``: an
error the run stops on is also an ``::error`` annotation, so it is seen on the run's
page and not only in its log (a shallow clone, with the fix)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click


from archmem.escape import workflow_command as escape  # noqa: E402  (its one place)


@contextmanager
def errors_as_annotations(enabled: bool, title: str) -> Iterator[None]:
    """Print an ``ArchmemError`` as ``::error title=…::message (hint)`` before it ends
    the command (which still prints it on stderr and exits with its code)."""
    from archmem.errors import ArchmemError

    try:
        yield
    except ArchmemError as exc:
        if enabled:
            click.echo(f"::error title={title}::{escape(str(exc))}")
        raise
