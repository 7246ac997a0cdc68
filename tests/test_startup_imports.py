"""The start-up budget: which modules ``archmem --version`` and ``archmem recall`` import.

An import list, not a timing: each command runs in a fresh interpreter and what it left in
``sys.modules`` must lie inside its budget. A module a command does not use is imported
where it is used (``archmem.cli.COMMAND_MODULES``, imports inside functions); a module it
does use joins its budget here, on purpose. ``bench/startup_speed.py`` times the same.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import commit, git, write

RUN = """\
import json, sys
BEFORE
sys.argv = ["archmem", *json.loads(sys.argv[1])]
from archmem.entry import main
try:
    main()
except SystemExit:
    pass
with open(OUT, "w") as handle:
    json.dump(RESULT, handle)
"""
"""A fresh ``archmem ARGS`` in a probe: BEFORE runs first, RESULT is written to OUT as JSON."""


def probe(args: list[str], cwd: Path, out: Path, *, before: str = "",
          result: str = "sorted(sys.modules)") -> subprocess.CompletedProcess[str]:
    """Run ``archmem ARGS`` in a fresh interpreter and write ``result`` (an expression) to ``out``."""
    code = RUN.replace("BEFORE", before).replace("RESULT", result).replace("OUT", repr(str(out)))
    return subprocess.run([sys.executable, "-c", code, json.dumps(args)], cwd=cwd, check=True, capture_output=True,
                          text=True)

ALWAYS = {"archmem", "archmem.entry", "archmem.command_client", "archmem.cli", "archmem.cli.output", "archmem.escape",
          "archmem.patterns", "archmem.words"}
"""What every command line imports: the entry, the command server's client (which says here
that this one runs in its own process), the click group, its safe output."""

RECALL_PACKAGES = ("archmem.store", "archmem.drift", "archmem.recall", "archmem.workspace", "archmem.git")
"""Packages ``recall`` uses as a whole: the index, drift for what to verify, the ranking."""

RECALL_MODULES = {
    "archmem.cli.recall", "archmem.clock", "archmem.config", "archmem.config_schema", "archmem.errors",
    "archmem.confinement", "archmem.initialize",
    "archmem.atomic_write", "archmem.yaml_text", "archmem.values",
    # the model, parsed from a Structurizr DSL file once and kept in the index (no parser on the
    # every-day path, no YAML, no Structurizr JSON reader)
    "archmem.model", "archmem.model.types", "archmem.model.loader", "archmem.model.paths",
    "archmem.model.confine", "archmem.model.ownership", "archmem.model.generated", "archmem.model.adrs",
    "archmem.model.description_lines",  # drift's baselines: which model-file lines only map code
    "archmem.model.dsl_cache",
    # the memory files: read, checked for secrets, linked
    "archmem.memory", "archmem.memory.types", "archmem.memory.fields", "archmem.memory.file_format",
    "archmem.memory.kinds", "archmem.memory.lifecycle", "archmem.memory.linking", "archmem.memory.links",
    "archmem.memory.sync", "archmem.memory.folder_signature", "archmem.memory.text", "archmem.memory.files",
    "archmem.memory.restatement",
}
"""Not the secret patterns: they are compiled when a memory is written or a file read."""

RECALL_SPARES = {"importlib.resources", "tempfile", "zipfile", "tomllib", "difflib", "secrets", "random"}
"""Standard modules recall leaves alone on a repository without settings: the shipped
thesaurus is a plain file, TOML is read only from a settings file, close names only for
a name that is not found, random names only for a file written or a memory made."""

RECALL_LEAVES = {"archmem.model.dsl", "archmem.model.dsl.parser", "archmem.drift.report", "archmem.git.blame",
                 "archmem.drift.accepts"}
"""Modules of recall's packages an every-day recall leaves alone: the DSL parser (the
parsed model is kept in the index), drift's report and git blame (a recall asks drift
only for what to verify), the accepts' reader (no accept file here)."""

RECALL_THIRD_PARTY = {"click"}
"""Installed packages recall may import: never pydantic, numpy, yaml, GitPython, jinja2,
networkx, an embedding client or the MCP SDK."""

MODEL = """\
workspace "Shop" {
  model {
    shop = softwareSystem "Shop" {
      orders = container "Orders" "Takes orders." "Python" {
        properties {
          "archmem.paths" "orders/**"
        }
      }
    }
  }
}
"""

MEMORY = """\
---
id: m-tax
kind: convention
elements: [shop.orders]
created: 2026-01-05T10:00:00Z
---
Tax is rounded once, on the whole cart.
"""


def imported(args: list[str], cwd: Path, tmp_path: Path) -> set[str]:
    """The modules a fresh ``archmem ARGS`` leaves in ``sys.modules``."""
    out = tmp_path / "modules.json"
    probe(args, cwd, out)
    return set(json.loads(out.read_text()))


def bare(tmp_path: Path) -> set[str]:
    out = tmp_path / "bare.json"
    subprocess.run([sys.executable, "-c", f"import json, sys; json.dump(list(sys.modules), open({str(out)!r}, 'w'))"],
                   check=True)
    return set(json.loads(out.read_text()))


def outside(modules: set[str], baseline: set[str], allowed: set[str], packages: tuple[str, ...],
            third_party: set[str]) -> list[str]:
    """The modules beyond the interpreter's own start, the standard library and the budget."""
    found = []
    for name in sorted(modules - baseline):
        top = name.split(".")[0]
        if {top, top.lstrip("_")} & sys.stdlib_module_names or top.startswith("_sysconfigdata"):
            continue
        if top == "archmem":
            if name in allowed or name.startswith(tuple(p + "." for p in packages)) or name in packages:
                continue
        elif top in third_party:
            continue
        found.append(name)
    return found


def test_version_imports_only_the_entry(tmp_path: Path):
    modules = imported(["--version"], tmp_path, tmp_path)
    assert outside(modules, bare(tmp_path), {"archmem", "archmem.entry"}, (), set()) == []


def test_the_fast_version_says_what_the_command_line_says(tmp_path: Path):
    from click.testing import CliRunner

    from archmem.cli import cli

    fast = subprocess.run([sys.executable, "-m", "archmem", "--version"], capture_output=True, text=True, check=True)
    assert fast.stdout == CliRunner().invoke(cli, ["--version"]).output
    assert fast.stdout.startswith("archmem, version ")


def test_help_imports_no_domain_module(tmp_path: Path):
    modules = imported(["--help"], tmp_path, tmp_path)
    commands = {f"archmem.cli.{name}" for name in ("check", "conformance", "demo", "drift", "hook", "install",
                                                     "mcp", "memory", "merge", "paths", "pr", "recall", "reports",
                                                     "server")}
    assert outside(modules, bare(tmp_path), ALWAYS | commands | {"archmem.json_input"}, (), {"click"}) == []


def test_recall_on_a_small_repository_stays_in_its_budget(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": MODEL, "orders/tax.py": "def tax(cents):\n    return cents // 5\n",
                 ".archmem/memories/m-tax.md": MEMORY})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    first = subprocess.run([sys.executable, "-m", "archmem", "recall", "tax rounding"], cwd=root,
                           capture_output=True, text=True)
    assert first.returncode == 0 and "Tax is rounded" in first.stdout, first.stdout + first.stderr
    modules = imported(["recall", "tax rounding"], root, tmp_path)  # the index is built: the every-day path
    assert "archmem.workspace" in modules and "archmem.recall.engine" in modules
    baseline = bare(tmp_path)  # an interpreter's own start may import some (a site .pth file)
    extra = outside(modules, baseline, ALWAYS | RECALL_MODULES, RECALL_PACKAGES, RECALL_THIRD_PARTY)
    assert extra == [], f"recall imports modules outside its budget: {extra}"
    assert sorted((modules - baseline) & RECALL_SPARES) == []
    assert sorted(modules & RECALL_LEAVES) == []


RECALL_IMPORTS = ("archmem.cli.recall", "archmem.workspace", "archmem.recall.engine", "archmem.memory.sync",
                  "archmem.drift.view", "archmem.drift.accepts", "archmem.yaml_text")

COMPILED = """\
import re, sys
compiled = []
real = re.compile
def counting(pattern, flags=0):
    if sys._getframe(1).f_globals.get("__name__", "").startswith("archmem"):
        compiled.append(pattern)
    return real(pattern, flags)
re.compile = counting
import importlib
for name in sys.argv[1:]:
    importlib.import_module(name)
print(len(compiled))
"""

RECALL_PATTERNS = 15
"""The patterns a recall runs on every call (words of the task, escapes, git's files):
compiled at import. Every other module-level pattern is ``archmem.patterns.lazy``."""


def test_importing_what_recall_uses_compiles_only_the_patterns_recall_runs():
    done = subprocess.run([sys.executable, "-c", COMPILED, *RECALL_IMPORTS], capture_output=True, text=True,
                          check=True)
    assert int(done.stdout) <= RECALL_PATTERNS


GENERATED = """\
import importlib, sys
generated = []
def count(event, args):
    if event == "compile" and not str(args[1]).endswith(".py"):  # not a module without byte code: source made at
        # run time (dataclass methods, named tuples, forward references)
        frame = sys._getframe(1)
        while frame is not None:
            name = frame.f_globals.get("__name__", "")
            if name.startswith(("archmem", "click")):
                if name.startswith("archmem"):
                    generated.append(name)
                break
            frame = frame.f_back
sys.addaudithook(count)
for name in sys.argv[1:]:
    importlib.import_module(name)
print(len(generated))
"""

RECALL_GENERATED = 170
"""Source compiled while recall's modules import (356 when every dataclass wrote its own
methods; ``archmem.values`` has them once): each dataclass still compiles its
``__init__``, a frozen one its ``__setattr__`` and ``__delattr__``."""


def test_importing_what_recall_uses_compiles_little_source(tmp_path: Path):
    done = subprocess.run([sys.executable, "-c", GENERATED, *RECALL_IMPORTS], capture_output=True, text=True,
                          check=True)
    assert int(done.stdout) <= RECALL_GENERATED


def test_a_lazy_pattern_compiles_at_first_use_and_then_is_the_pattern():
    import re

    from archmem.patterns import lazy

    broken = lazy("(")  # nothing compiled yet: no error
    with pytest.raises(re.error):
        broken.match("(")
    words = lazy(r"(\w+)-(\w+)", re.IGNORECASE)
    assert words.fullmatch("Tax-Rate")[2] == "Rate"  # type: ignore[index]
    assert words.pattern == r"(\w+)-(\w+)" and words.flags == re.compile(r"(\w+)-(\w+)", re.IGNORECASE).flags
    assert words.sub(r"\2 \1", "a-b c-d") == "b a d c"
    assert words.match == words.match  # kept: the pattern's own method from then on
    assert lazy(rb"\d+").findall(b"1 22") == [b"1", b"22"]


@pytest.mark.parametrize("module", ["archmem.config", "archmem.cli"])
def test_the_configuration_and_the_command_line_build_no_pydantic_model(module: str, tmp_path: Path):
    code = (f"import sys, pathlib; import {module}; from archmem.config import load_config; "
            f"load_config(pathlib.Path({str(tmp_path)!r}), env={{}}); print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_settings_left_at_their_defaults_are_not_checked_again(tmp_path: Path):
    """Every command loads the settings; with none given (no file, no ``ARCHMEM_*``), the
    defaults are taken as they are: no field's type is resolved from its annotation text
    (each one a compile at run time), no default checked against its bounds."""
    code = (f"import sys, pathlib; from archmem.config import load_config; compiled = []; "
            f"sys.addaudithook(lambda event, args: compiled.append(args) if event == 'compile' "
            f"and not str(args[1]).endswith('.py') else None); "
            f"config = load_config(pathlib.Path({str(tmp_path)!r}), env={{'HOME': '/nowhere'}}); "
            f"print(len(compiled), config.recall.candidates, config.store.busy_timeout_ms)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "100", "30000"]


def test_every_lazy_command_is_registered_by_the_module_named_for_it():
    import importlib

    from archmem.cli import COMMAND_MODULES, cli

    for module in set(COMMAND_MODULES.values()):
        importlib.import_module(module)
    registered = {name: command.callback.__module__ for name, command in cli.commands.items()}
    assert {name: module for name, module in registered.items() if module != "archmem.cli"} == COMMAND_MODULES


ANCHORED = """\
---
id: m-anchored
kind: pitfall
elements: [shop.orders]
anchors: [orders/tax.py]
created: 2026-01-05T10:00:00Z
---
The tax function floors: never round a line on its own.
"""


def git_calls(root: Path, tmp_path: Path, *args: str) -> list[str]:
    """The git commands one ``archmem ARGS`` ran (through a logging ``git`` first on PATH)."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "logging-git"
    folder.mkdir(exist_ok=True)
    log = folder / "calls.log"
    log.write_text("")
    wrapper = folder / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {shlex.quote(str(log))}\nexec {shlex.quote(real)} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "archmem", *args], cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return log.read_text().splitlines()


def test_a_recall_in_an_unchanged_repository_runs_at_most_two_git_processes(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": MODEL, "orders/tax.py": "def tax(cents):\n    return cents // 5\n",
                 ".archmem/memories/m-tax.md": MEMORY, ".archmem/memories/m-anchored.md": ANCHORED})
    commit(root, "initial", "2026-01-01T10:00:00Z")
    write(root, {"orders/tax.py": "".join(f"def tax{n}(cents):\n    return cents * {n} // 100\n" for n in range(40))})
    commit(root, "tax by rate", "2026-02-01T10:00:00Z")
    first = git_calls(root, tmp_path, "recall", "tax rounding")  # builds the index, reads history and diffs
    assert any("diff" in call.split() for call in first), first
    again = git_calls(root, tmp_path, "recall", "tax rounding")
    assert len(again) <= 2, f"one recall ran {len(again)} git processes: {again}"


def test_what_recall_remembers_of_git_follows_head(tmp_path: Path):
    """The memory files' last commits and the anchored diffs are kept per HEAD: after a
    new commit recall says what a fresh index says."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": MODEL, "orders/tax.py": "def tax(cents):\n    return cents // 5\n",
                 ".archmem/memories/m-anchored.md": ANCHORED})
    commit(root, "initial", "2026-01-01T10:00:00Z")

    def recall() -> list[tuple[object, ...]]:
        done = subprocess.run([sys.executable, "-m", "archmem", "recall", "--json", "tax floors"], cwd=root,
                              capture_output=True, text=True, check=True)
        return [(item["id"], item["verify"], item["verify_reason"]) for item in json.loads(done.stdout)["results"]]

    assert recall() == [("m-anchored", False, None)]
    write(root, {"orders/tax.py": "".join(f"def tax{n}(cents):\n    return cents * {n} // 100\n" for n in range(40))})
    commit(root, "tax by rate", "2026-02-01T10:00:00Z")
    assert recall()[0][1] is True  # the anchored file's diff is kept for this HEAD
    write(root, {"orders/tax.py": "def tax(cents):\n    return cents // 5\n"})
    commit(root, "back to one rate", "2026-03-01T10:00:00Z")
    moved = recall()
    (root / ".archmem" / "archmem.db").unlink()
    assert recall() == moved


OPENED = """\
opened = []
sys.addaudithook(lambda event, args: opened.append(args[0]) if event == "open" and isinstance(args[0], str) else None)
"""

TWO_PARTS = MODEL.replace('''      }
    }
  }
}''', '''      }
      billing = container "Billing" "Sends invoices." "Python" {
        properties {
          "archmem.paths" "billing/**"
        }
      }
    }
  }
}''')


def test_a_recall_reads_the_code_of_the_elements_it_asks_about_only(tmp_path: Path):
    """Staleness weighs change against an element's size in lines: only the elements of
    the memories it checks are counted, not every file of the repository."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    billing = {f"billing/invoice_{n}.py": f"def invoice_{n}():\n    return {n}\n" for n in range(20)}
    write(root, {"workspace.dsl": TWO_PARTS, "orders/tax.py": "def tax(cents):\n    return cents // 5\n",
                 ".archmem/memories/m-tax.md": MEMORY, **billing})
    commit(root, "initial", "2026-01-01T10:00:00Z")
    subprocess.run([sys.executable, "-m", "archmem", "recall", "tax rounding"], cwd=root, check=True,
                   capture_output=True)
    out = tmp_path / "opened.json"
    done = probe(["recall", "tax rounding"], root, out, before=OPENED, result="opened")
    assert "Tax is rounded" in done.stdout
    opened = [Path(path).resolve() for path in json.loads(out.read_text())]
    assert not [path for path in opened if (root / "billing") in path.parents]


def test_every_dataclass_says_what_it_is():
    """A dataclass without a docstring gets one built at import from ``inspect.signature``
    (Python 3.11), a cost every command paid per class; and a reader wants one anyway."""
    import ast

    from .conftest import REPO_ROOT

    def is_dataclass(decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return (isinstance(target, ast.Name) and target.id == "dataclass") or (
            isinstance(target, ast.Attribute) and target.attr == "dataclass")

    bare_classes = [
        f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.name}"
        for path in sorted((REPO_ROOT / "archmem").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and any(map(is_dataclass, node.decorator_list))
        and ast.get_docstring(node) is None
    ]
    assert bare_classes == []
