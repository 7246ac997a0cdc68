"""The one Jinja2 environment: a project's ``.archmem/templates/`` first, then the
templates shipped with archmem. A template error names the template and its line.

Memory content, element names, authors and file names are untrusted text, so every
interpolated value is finalized: HTML is autoescaped and its control characters shown
as escapes; in Markdown a value stays on its line and is inert (``escape.markdown_inline``:
no heading, raw HTML or image can come out of it). ``{{ x | code }}`` puts a value in a
code span that shows it literally, whatever backticks it holds.

The project's folder is committed by anyone, so a template there that is a symlink
leading out of it is refused before it is read: a comment or briefing never carries a
file from outside the repository (``archmem.confinement``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from archmem.confinement import OutsideBoundary, resolve_within
from archmem.errors import ArchmemError
from archmem.escape import markdown_code, markdown_inline, printable
from archmem.words import plural


class TemplateError(ArchmemError):
    exit_code = 11
    kind = "template_error"


def shipped_templates() -> Path:
    """Inside the wheel: ``archmem/templates``; in a checkout: the repository's ``templates/``."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "templates"
    return installed if installed.is_dir() else package.parent / "templates"


def render(name: str, context: dict[str, Any], *, overrides: Path | None = None) -> str:
    import jinja2

    folders = [str(p) for p in (overrides, shipped_templates()) if p is not None and p.is_dir()]
    environment = jinja2.Environment(
        loader=_confined_loader(folders, overrides),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html", "htm", "html.j2", "htm.j2"), default_for_string=False
        ),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=jinja2.pass_eval_context(lambda eval_ctx, value: _finalize(value, html=eval_ctx.autoescape)),
    )
    environment.filters["plural"] = plural
    environment.filters["code"] = _code
    try:
        return environment.get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"{exc.filename or exc.name}:{exc.lineno}: template syntax error: {exc.message}") from None
    except jinja2.TemplateNotFound:
        raise TemplateError(f"template {name!r} not found in {', '.join(folders)}") from None
    except jinja2.UndefinedError as exc:
        raise TemplateError(f"{name}: {exc.message}") from None


def _confined_loader(folders: list[str], overrides: Path | None) -> Any:
    """A ``FileSystemLoader`` over ``folders`` that refuses a template of ``overrides``
    whose file, symlinks followed, leaves that folder."""
    import jinja2
    from jinja2.loaders import split_template_path

    class ConfinedLoader(jinja2.FileSystemLoader):
        def get_source(self, environment: jinja2.Environment, template: str) -> Any:
            if overrides is not None:
                candidate = Path(overrides, *split_template_path(template))
                if os.path.lexists(candidate):
                    try:
                        resolve_within(candidate, base=overrides, within=overrides)
                    except (OutsideBoundary, OSError, RuntimeError, ValueError):
                        raise TemplateError(f"{candidate}: a template that leads outside {overrides} (a symlink) is "
                                            "not read", hint=f"replace {candidate.name} with the template itself") \
                            from None
            return super().get_source(environment, template)

    return ConfinedLoader(folders)


def _finalize(value: Any, *, html: bool) -> Any:
    """What a ``{{ … }}`` prints: Markup (a macro's HTML, a ``code`` span) as it is;
    anything else printable in HTML (autoescape then escapes it), inert in Markdown."""
    from markupsafe import Markup

    if isinstance(value, Markup):
        return value
    text = str(value)
    return printable(text) if html else markdown_inline(text)


def _code(value: Any) -> Any:
    """``{{ path | code }}``: the value as a Markdown code span, shown literally."""
    from markupsafe import Markup

    return Markup(markdown_code(str(value)))
