"""Resolving what a file imports to files of this repository, per language.

An import resolves to files here (``internal``), to something outside the repository
(``external``: the standard library, a third-party package, a module no file here
declares), or to nothing although it names this repository's code (``unresolved``, with
the reason). Nothing is guessed: what cannot be resolved is counted and shown.

* Python: relative imports from the file's package; absolute ones from every package
  root (the repository root, each top-level package's parent folder, ``python_roots``)
  and, for a script outside a package, its own folder.
* TypeScript/JavaScript: relative paths with the usual extensions and ``index`` files,
  the nearest ``tsconfig.json``/``jsconfig.json`` (``paths``, ``baseUrl``, ``extends``),
  and the workspace's own packages by their ``package.json`` name.
* Go: module paths from every ``go.mod``; an import names a package, that is a folder.
* Java/Kotlin: declared packages; a class by its file name, ``*`` for a whole package,
  a Kotlin top-level function by its package.
* C#: declared namespaces (best effort: ``using`` names a namespace, so every file that
  declares it is a target).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from archmem.conformance.scan import FileImports, ImportRef, skeleton
from archmem.json_input import load_json
from archmem.values import Record, Value

Reader = Callable[[str], "str | None"]
"""Repo-relative path → its text (None when it cannot be read)."""


@dataclass(frozen=True, repr=False, eq=False)
class Resolution(Value):
    """Where an import leads: its status, the files it resolves to, and why."""

    status: str
    """``internal``, ``external`` or ``unresolved``."""
    targets: tuple[str, ...] = ()
    reason: str = ""


EXTERNAL = Resolution("external")


def _internal(targets: Iterable[str]) -> Resolution:
    return Resolution("internal", tuple(dict.fromkeys(targets)))


def _unresolved(reason: str) -> Resolution:
    return Resolution("unresolved", reason=reason)


class Resolver:
    """Resolves imports of every language against one snapshot of the repository's files."""

    def __init__(self, files: Iterable[str], scanned: Mapping[str, FileImports], read: Reader,
                 *, python_roots: Iterable[str] = ()) -> None:
        self.files = set(files)
        self.by_dir: dict[str, list[str]] = {}
        for path in sorted(self.files):
            self.by_dir.setdefault(posixpath.dirname(path), []).append(path)
        self.read = read
        self._python = _PythonIndex(self.files, python_roots)
        self._js = _ScriptIndex(self, read)
        self._go = _GoIndex(self, read)
        self._jvm = _DeclaredIndex(scanned, ("java", "kotlin"))
        self._cs = _DeclaredIndex(scanned, ("csharp",))

    def resolve(self, path: str, language: str, ref: ImportRef) -> Resolution:
        if language == "python":
            return self._python.resolve(path, ref)
        if language in ("typescript", "javascript"):
            return self._js.resolve(path, ref.spec)
        if language == "go":
            return self._go.resolve(ref.spec)
        if language in ("java", "kotlin"):
            return self._jvm.resolve_jvm(ref)
        if language == "csharp":
            return self._cs.resolve_csharp(ref)
        return EXTERNAL


def _join(folder: str, relative: str) -> str | None:
    """``folder/relative`` normalized; None when it leaves the repository."""
    joined = posixpath.normpath(posixpath.join(folder, relative)) if folder else posixpath.normpath(relative)
    if joined == ".":
        return ""
    if joined.startswith("../") or joined == ".." or joined.startswith("/"):
        return None
    return joined


# ---- Python ------------------------------------------------------------------------


class _PythonIndex:
    def __init__(self, files: set[str], extra_roots: Iterable[str]) -> None:
        self.files = files
        py = [f for f in files if f.endswith((".py", ".pyi"))]
        self.modules: dict[str, str] = {}
        """``a/b`` → ``a/b.py`` (or ``.pyi``, or ``a/b/__init__.py``), in Python's order."""
        for path in sorted(py, key=lambda p: (p.endswith("i"), "__init__" in p)):
            stem = path.rsplit(".", 1)[0]
            if stem.endswith("/__init__") or stem == "__init__":
                stem = stem[: -len("__init__")].rstrip("/")
            self.modules.setdefault(stem, path)
        packages = {posixpath.dirname(f) for f in py if posixpath.basename(f) in ("__init__.py", "__init__.pyi")}
        self.packages = packages
        roots = {""} | {posixpath.dirname(p) for p in packages if posixpath.dirname(p) not in packages}
        roots |= {r.strip("/") for r in extra_roots}
        self.roots = sorted(roots, key=lambda r: (-r.count("/"), r))  # the deepest root first
        self.top_level: set[str] = set()
        for path in py:
            for root in self.roots:
                if root == "" or path.startswith(root + "/"):
                    rest = path[len(root) + 1:] if root else path
                    self.top_level.add(rest.split("/", 1)[0].split(".")[0])

    def _module(self, folder: str, dotted: str) -> str | None:
        """The file of module ``dotted`` below ``folder``: ``a/b.py`` or ``a/b/__init__.py``."""
        relative = dotted.replace(".", "/")
        return self.modules.get(f"{folder}/{relative}" if folder and relative else folder or relative)

    def _names(self, folder: str, module: str, names: tuple[str, ...]) -> list[str] | None:
        """Targets of ``from module import names`` below ``folder`` (None: no such module)."""
        targets = []
        for name in names:
            sub = self._module(folder, f"{module}.{name}" if module else name) if name != "*" else None
            if sub is not None:
                targets.append(sub)
                continue
            own = self._module(folder, module)
            if own is None:
                if not module and self._is_namespace(folder):
                    continue
                return None
            targets.append(own)
        if not names:
            own = self._module(folder, module)
            if own is None:
                return None
            targets.append(own)
        return targets

    def _is_namespace(self, folder: str) -> bool:
        return any(f.startswith(folder + "/") for f in self.files) if folder else True

    def resolve(self, path: str, ref: ImportRef) -> Resolution:
        spec = ref.spec
        level = len(spec) - len(spec.lstrip("."))
        module = spec[level:]
        folder = posixpath.dirname(path)
        if level:
            for _ in range(level - 1):
                if not folder:
                    return _unresolved(f"{spec} goes above the repository root")
                folder = posixpath.dirname(folder)
            targets = self._names(folder, module, ref.names)
            if targets is None:
                return _unresolved(f"no module {spec} next to {path}")
            return _internal(targets) if targets else _unresolved(f"{spec} names a folder, not a module")
        roots = list(self.roots)
        if folder not in self.packages and folder not in roots:
            roots.insert(0, folder)  # a script: Python puts its own folder first on sys.path
        for root in roots:
            targets = self._absolute(root, module, ref.names)
            if targets:
                return _internal(targets)
        if module.split(".")[0] in self.top_level:
            return _unresolved(f"no module {module} in this repository")
        return EXTERNAL

    def _absolute(self, root: str, module: str, names: tuple[str, ...]) -> list[str] | None:
        if names:
            return self._names(root, module, names)
        found = self._module(root, module)
        return [found] if found else None


# ---- TypeScript / JavaScript -------------------------------------------------------

_SCRIPT_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")


def load_jsonc(text: str) -> object:
    """JSON with comments and trailing commas, as tsconfig files are written."""
    code = skeleton(text, "js")
    code = re.sub(r",(\s*[}\]])", r"\1", code)
    return load_json(code)


@dataclass(repr=False, eq=False)
class _TsConfig(Record):
    """What a tsconfig.json says about resolving imports: ``baseUrl`` and ``paths``."""

    base_url: str | None
    paths: list[tuple[str, list[str]]]
    """(pattern, targets) with targets already repo-relative, longest prefix first."""


class _ScriptIndex:
    def __init__(self, resolver: Resolver, read: Reader) -> None:
        self.files = resolver.files
        self.read = read
        self.configs: dict[str, _TsConfig | None] = {}
        self.config_dirs = {posixpath.dirname(f) for f in self.files if posixpath.basename(f) in _CONFIG_NAMES}
        self.packages: dict[str, str] = {}
        for manifest in sorted(f for f in self.files if posixpath.basename(f) == "package.json"):
            data = self._json(manifest)
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                self.packages.setdefault(data["name"], posixpath.dirname(manifest))
        self._nearest: dict[str, _TsConfig | None] = {}

    def _json(self, path: str) -> object:
        text = self.read(path)
        if text is None:
            return None
        try:
            return load_jsonc(text)
        except ValueError:
            return None

    def file(self, base: str) -> str | None:
        """The file an extension-less or ``.js`` path means, or its folder's ``index``."""
        if base in self.files:
            return base
        for ext in _SCRIPT_EXTENSIONS:
            if base + ext in self.files:
                return base + ext
        stem, ext = posixpath.splitext(base)
        for alternative in _JS_TO_TS.get(ext, ()):
            if stem + alternative in self.files:
                return stem + alternative
        for ext in _SCRIPT_EXTENSIONS:
            index = posixpath.join(base, "index" + ext) if base else "index" + ext
            if index in self.files:
                return index
        return None

    def _config_at(self, folder: str, depth: int = 0) -> _TsConfig | None:
        """The tsconfig/jsconfig in ``folder`` with what it ``extends`` (relative only)."""
        if folder in self.configs:
            return self.configs[folder]
        self.configs[folder] = None  # guards an ``extends`` loop
        config = None
        for name in _CONFIG_NAMES:
            path = posixpath.join(folder, name) if folder else name
            if path in self.files:
                config = self._load(path, depth)
                break
        self.configs[folder] = config
        return config

    def _load(self, path: str, depth: int) -> _TsConfig | None:
        data = self._json(path)
        if not isinstance(data, dict):
            return None
        folder = posixpath.dirname(path)
        inherited = _TsConfig(None, [])
        extends = data.get("extends")
        if isinstance(extends, str) and extends.startswith(".") and depth < 8:
            target = _join(folder, extends if extends.endswith(".json") else extends + ".json")
            if target is not None and target in self.files:
                parent = self._load(target, depth + 1)
                if parent is not None:
                    inherited = parent
        options = data.get("compilerOptions")
        if not isinstance(options, dict):
            options = {}
        base_url = inherited.base_url
        if isinstance(options.get("baseUrl"), str):
            base_url = _join(folder, options["baseUrl"])
        paths = inherited.paths
        if isinstance(options.get("paths"), dict):
            anchor = base_url if base_url is not None else folder
            paths = []
            for pattern, targets in options["paths"].items():
                if isinstance(targets, list):
                    mapped = [_join(anchor, t) for t in targets if isinstance(t, str)]
                    paths.append((pattern, [t for t in mapped if t is not None]))
            paths.sort(key=lambda item: -len(item[0].split("*")[0]))
        return _TsConfig(base_url, paths)

    def nearest(self, folder: str) -> _TsConfig | None:
        if folder not in self._nearest:
            found = None
            current: str | None = folder
            while current is not None:
                if current in self.config_dirs:
                    found = self._config_at(current)
                    break
                current = posixpath.dirname(current) if current else None
            self._nearest[folder] = found
        return self._nearest[folder]

    def resolve(self, path: str, spec: str) -> Resolution:
        folder = posixpath.dirname(path)
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            joined = _join(folder, spec)
            if joined is None:
                return EXTERNAL
            found = self.file(joined)
            return _internal([found]) if found else _unresolved(f"no file {joined}")
        if spec.startswith("/") or ":" in spec.split("/")[0]:
            return EXTERNAL  # an absolute path, a URL, node:fs
        config = self.nearest(folder)
        if config is not None:
            for pattern, targets in config.paths:
                prefix, star, suffix = pattern.partition("*")
                if star and spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(prefix + suffix):
                    middle = spec[len(prefix): len(spec) - len(suffix)]
                elif not star and spec == pattern:
                    middle = ""
                else:
                    continue
                for target in targets:
                    found = self.file(target.replace("*", middle, 1))
                    if found:
                        return _internal([found])
                if pattern != "*":
                    return _unresolved(f"tsconfig paths {pattern!r} matched, but no file for {spec}")
                break
            if config.base_url is not None:
                found = self.file(_join(config.base_url, spec) or "")
                if found:
                    return _internal([found])
        return self._package(spec)

    def _package(self, spec: str) -> Resolution:
        """A package of this workspace (a monorepo), by its package.json name."""
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        folder = self.packages.get(name)
        if folder is None:
            return EXTERNAL
        sub = spec[len(name):].lstrip("/")
        candidates = [posixpath.join(folder, sub), posixpath.join(folder, "src", sub)] if sub else []
        if not sub:
            manifest = self._json(posixpath.join(folder, "package.json") if folder else "package.json")
            if isinstance(manifest, dict):
                for key in ("source", "types", "typings", "module", "main"):
                    if isinstance(manifest.get(key), str):
                        joined = _join(folder, manifest[key])
                        if joined is not None:
                            candidates.append(joined)
            candidates += [posixpath.join(folder, "src", "index"), posixpath.join(folder, "index")]
        for candidate in candidates:
            found = self.file(candidate.strip("/"))
            if found:
                return _internal([found])
        return _unresolved(f"package {name} is in this repository ({folder or '.'}), but no file for {spec}")


# ---- Go ----------------------------------------------------------------------------

_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.M)


class _GoIndex:
    def __init__(self, resolver: Resolver, read: Reader) -> None:
        self.by_dir = resolver.by_dir
        self.modules: list[tuple[str, str]] = []
        for manifest in sorted(f for f in resolver.files if posixpath.basename(f) == "go.mod"):
            match = _GO_MODULE.search(read(manifest) or "")
            if match:
                self.modules.append((match.group(1), posixpath.dirname(manifest)))
        self.modules.sort(key=lambda item: -len(item[0]))

    def resolve(self, spec: str) -> Resolution:
        for module, folder in self.modules:
            if spec == module or spec.startswith(module + "/"):
                rest = spec[len(module) + 1:]
                package = posixpath.join(folder, rest) if folder and rest else (folder or rest)
                files = [f for f in self.by_dir.get(package, []) if f.endswith(".go") and not f.endswith("_test.go")]
                return _internal(files) if files else _unresolved(f"no Go files in {package or '.'} (module {module})")
        return EXTERNAL


# ---- Java / Kotlin / C#: declared packages and namespaces -------------------------


class _DeclaredIndex:
    def __init__(self, scanned: Mapping[str, FileImports], languages: tuple[str, ...]) -> None:
        self.members: dict[str, list[str]] = {}
        self.types: dict[tuple[str, str], str] = {}
        for path, found in sorted(scanned.items()):
            if found.language not in languages:
                continue
            stem = path.rsplit("/", 1)[-1].split(".")[0]
            for name in found.declares:
                self.members.setdefault(name, []).append(path)
                self.types.setdefault((name, stem), path)
        self.heads = {tuple(name.split(".")[:2]) for name in self.members}
        self.firsts = {name.split(".")[0] for name in self.members}

    def _class(self, parts: list[str]) -> str | None:
        for k in range(len(parts) - 1, 0, -1):
            found = self.types.get((".".join(parts[:k]), parts[k]))
            if found:
                return found
        return None

    def resolve_jvm(self, ref: ImportRef) -> Resolution:
        star = ref.spec.endswith(".*")
        parts = (ref.spec[:-2] if star else ref.spec).split(".")
        name = ".".join(parts)
        if star and name in self.members:
            return _internal(self.members[name])
        found = self._class(parts)
        if found:
            return _internal([found])
        package = ".".join(parts[:-1])
        if not star and package in self.members:
            return _internal(self.members[package])  # a Kotlin top-level function or property
        if tuple(parts[:2]) in self.heads:
            return _unresolved(f"no class or package {ref.spec} in this repository")
        return EXTERNAL

    def resolve_csharp(self, ref: ImportRef) -> Resolution:
        name = ref.spec
        if name in self.members:
            return _internal(self.members[name])
        if ref.static:
            found = self._class(name.split("."))
            if found:
                return _internal([found])
        if name.split(".")[0] in self.firsts:
            return _unresolved(f"no file declares namespace {name}")
        return EXTERNAL
