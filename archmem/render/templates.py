"""The one Jinja2 environment: a project's ``.archmem/templates/`` first, then the
templates shipped with archmem. Markdown is not escaped; HTML is autoescaped (memory
content is untrusted text). A template error names the template and its line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archmem.errors import ArchmemError
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
        loader=jinja2.FileSystemLoader(folders),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html", "htm", "html.j2", "htm.j2"), default_for_string=False
        ),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["plural"] = plural
    try:
        return environment.get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"{exc.filename or exc.name}:{exc.lineno}: template syntax error: {exc.message}") from None
    except jinja2.TemplateNotFound:
        raise TemplateError(f"template {name!r} not found in {', '.join(folders)}") from None
    except jinja2.UndefinedError as exc:
        raise TemplateError(f"{name}: {exc.message}") from None
