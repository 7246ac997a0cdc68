"""What a repository's build and deployment files say about where each unit's code is.

A docker-compose service that builds ``./services/order-svc``, a ``package.json`` named
``@shop/storefront``, a Kubernetes Deployment ``cartservice``, a Django management
command ``process_emails``, a Procfile ``worker: celery -A shop.tasks worker``: each is a
*name* pointing at a folder or file (an ``Alias``), the evidence ``paths suggest``
weighs next to the folder names themselves. Folders that build on their own (a
Dockerfile, a package manifest, a Django app, a Go command) are *units*.

Only small text files are read (through the ``read`` callback); a file that does not
parse is skipped, never an error: this is evidence, not configuration.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from archmem.json_input import load_json
from archmem.values import Record, Value

Read = Callable[[str], "str | None"]
"""Repo path → its text (None when unreadable or too large)."""

_K8S_KINDS = frozenset({"deployment", "statefulset", "daemonset", "job", "cronjob", "rollout", "deploymentconfig"})
_MAX_YAML = 400
"""YAML files read for Kubernetes resources at most (the first, in path order)."""
_MODULE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+(?::[\w.]+)?$")


@dataclass(frozen=True, repr=False, eq=False)
class Alias(Value):
    """``name`` points at ``target`` (a repo folder or file), because of ``evidence``."""

    name: str
    target: str
    evidence: str
    strength: float = 1.0
    command: bool = False
    """A command the repository runs (a management command, a Procfile process, a script)."""


@dataclass(repr=False, eq=False)
class Manifests(Record):
    """Every alias found, and the folders that build or run on their own."""

    aliases: list[Alias] = field(default_factory=list)
    units: dict[str, str] = field(default_factory=dict)
    """Folder → why it is a unit (``has a Dockerfile``)."""
    frameworks: dict[str, dict[str, str]] = field(default_factory=dict)
    """Framework (``next``, ``django``) → the places built with it → why (``frontend/package.json
    depends on next``)."""

    def framework(self, name: str, place: str, why: str) -> None:
        self.frameworks.setdefault(name, {}).setdefault(place, why)

    def unit(self, folder: str, why: str) -> None:
        self.units.setdefault(folder, why)


def read_manifests(files: Sequence[str], read: Read) -> Manifests:
    """Aliases and units from the build and deployment files among ``files``."""
    found = Manifests()
    present = set(files)
    folders = _folders(files)
    yaml_read = 0
    for path in files:
        name = PurePosixPath(path).name
        lower = name.lower()
        folder = posixpath.dirname(path)
        if lower == "dockerfile" or lower.endswith(".dockerfile") or lower.startswith("dockerfile."):
            found.unit(folder or ".", f"{path} builds an image")
            if "." in lower and lower != "dockerfile":
                label = lower.removesuffix(".dockerfile").removeprefix("dockerfile.")
                found.aliases.append(Alias(label, folder or ".", f"{path} builds {label}", 0.8))
        elif re.fullmatch(r"(?:docker-)?compose(?:[.-][\w.-]+)?\.ya?ml", lower):
            _compose(path, read, folders, found)
        elif lower == "package.json":
            _package_json(path, read, found)
        elif lower == "pyproject.toml":
            _pyproject(path, read, present, found)
        elif lower == "go.mod":
            _go_mod(path, read, found)
        elif lower == "pom.xml":
            _pom(path, read, found)
        elif lower == "cargo.toml":
            _cargo(path, read, found)
        elif lower.endswith((".csproj", ".fsproj", ".vbproj")):
            project = name.rsplit(".", 1)[0]
            found.unit(folder or ".", f"{path} is a .NET project")
            found.aliases.append(Alias(project, folder or ".", f"{path} builds {project}", 1.0))
        elif lower in ("settings.gradle", "settings.gradle.kts"):
            _gradle(path, read, folders, found)
        elif lower == "procfile":
            _procfile(path, read, present, found)
        elif lower == "chart.yaml":
            _chart(path, read, folders, found)
        elif lower == "manage.py":
            found.unit(folder or ".", f"{path}: a Django project")
            found.framework("django", path, f"{path} runs the Django project")
        elif lower == "settings.py" or (folder.endswith("/settings") and lower.endswith(".py")):
            _django_settings(path, read, present, found)
        elif lower == "apps.py" and present.intersection({f"{folder}/models.py", f"{folder}/views.py"}):
            found.unit(folder, f"{folder} is a Django app")
        elif lower == "main.go" and folder and PurePosixPath(folder).parent.name == "cmd":
            found.unit(folder, f"{path}: a Go command")
        elif _management_command(path):
            command = PurePosixPath(path).stem
            found.aliases.append(Alias(command, path, f"{path} is the Django management command {command}", 1.0,
                                       command=True))
        elif lower.endswith((".yaml", ".yml")) and yaml_read < _MAX_YAML:
            yaml_read += 1
            _kubernetes(path, read, folders, found)
        if name == "MLproject":
            found.framework("mlproject", folder or ".", f"{path} describes an MLflow project")
        if lower.endswith(".tf"):
            found.framework("terraform", folder or ".", f"{path} is Terraform")
        elif lower == "kustomization.yaml":
            found.framework("kustomize", folder or ".", f"{path} is a kustomization")
        elif lower == "chart.yaml":
            found.framework("helm", folder or ".", f"{path} is a Helm chart")
    for key in ("terraform", "kustomize", "helm", "kubernetes", "mlproject"):
        if key in found.frameworks:
            found.frameworks[key] = _outermost(found.frameworks[key])
    return found


def _outermost(places: dict[str, str]) -> dict[str, str]:
    """Only the folders no other of them holds (``kustomize`` over ``kustomize/base``);
    never the repository root nor a hidden folder (CI, tooling)."""
    kept = {p: why for p, why in places.items() if p != "." and not any(part.startswith(".") for part in p.split("/"))}
    return {p: why for p, why in kept.items() if not any(p.startswith(other + "/") for other in kept)}


def _folders(files: Iterable[str]) -> dict[str, list[str]]:
    """Folder base name (lower case, separators dropped) → the folders so named."""
    return folders_by_name(files, lambda base: (_flat(base),))


def folders_by_name(files: Iterable[str], keys: Callable[[str], Iterable[str]]) -> dict[str, list[str]]:
    """Every folder holding a file, outermost first, under each key ``keys`` gives its base name."""
    by_name: dict[str, list[str]] = {}
    seen: set[str] = set()
    for path in files:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder in seen:
                continue
            seen.add(folder)
            for key in dict.fromkeys(keys(parts[depth - 1])):
                by_name.setdefault(key, []).append(folder)
    return by_name


def _flat(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _management_command(path: str) -> bool:
    parts = path.split("/")
    return (
        len(parts) >= 3 and parts[-3] == "management" and parts[-2] == "commands"
        and parts[-1].endswith(".py") and not parts[-1].startswith("_")
    )


def _yaml(text: str) -> list[object]:
    import yaml

    try:
        return [doc for doc in yaml.safe_load_all(text) if doc is not None]
    except yaml.YAMLError:
        return []


def _compose(path: str, read: Read, folders: dict[str, list[str]], found: Manifests) -> None:
    text = read(path)
    docs = _yaml(text) if text else []
    base = posixpath.dirname(path)
    services = docs[0].get("services") if docs and isinstance(docs[0], dict) else None
    if not isinstance(services, dict):
        return
    for service, spec in services.items():
        if not isinstance(spec, dict):
            continue
        build = spec.get("build")
        context = build if isinstance(build, str) else build.get("context", ".") if isinstance(build, dict) else None
        if context is None:
            image = spec.get("image")
            if isinstance(image, str):
                _by_name(str(service), _image_name(image), folders, found, f"{path}: service {service} runs {image}")
            continue
        target = posixpath.normpath(posixpath.join(base, str(context)))
        if target.startswith("..") or "://" in str(context):
            continue
        target = "." if target in ("", ".") else target
        found.unit(target, f"{path}: service {service} builds it")
        found.aliases.append(Alias(str(service), target, f"{path}: service {service} builds {target}/", 1.0))


def _image_name(image: str) -> str:
    """``gcr.io/shop/cart-service:1.2`` → ``cart-service``."""
    return image.rsplit("/", 1)[-1].split("@")[0].split(":")[0]


def _by_name(label: str, name: str, folders: dict[str, list[str]], found: Manifests, evidence: str) -> None:
    """A deployed name whose folder is found by name alone (``cartservice`` →
    ``src/cartservice``): an alias for the label when exactly one folder is so named."""
    candidates = folders.get(_flat(name), [])
    if len(candidates) == 1:
        found.aliases.append(Alias(label, candidates[0], f"{evidence}, built from {candidates[0]}/", 0.9))


def _package_json(path: str, read: Read, found: Manifests) -> None:
    text = read(path)
    try:
        data = load_json(text) if text else None
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    folder = posixpath.dirname(path) or "."
    name = data.get("name")
    if isinstance(name, str) and name:
        short = name.rsplit("/", 1)[-1]
        found.unit(folder, f"{path} is the package {name}")
        found.aliases.append(Alias(short, folder, f"{path}: package {name}", 1.0))
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        declared = data.get(key)
        if isinstance(declared, dict) and folder != ".":
            for dependency in declared:
                framework = _JS_FRAMEWORKS.get(str(dependency))
                if framework:
                    found.framework(framework, folder, f"{path} depends on {dependency}")


_JS_FRAMEWORKS = {
    "next": "next", "react": "react", "vue": "vue", "nuxt": "nuxt", "@angular/core": "angular", "svelte": "svelte",
    "@sveltejs/kit": "svelte", "express": "express", "@nestjs/core": "nest", "electron": "electron",
    "react-native": "react-native", "expo": "react-native",
}
"""npm dependencies that say which framework a folder is built with."""
_INSTALLED_APPS = re.compile(r"INSTALLED_APPS\s*(?:\+?=|\.append\(|\.extend\(|\.insert\([^,]*,)\s*(\[[^\]]*\]|[^\n]*)")
_STRING = re.compile(r"""["']([A-Za-z_][\w.]*)["']""")


def _django_settings(path: str, read: Read, present: set[str], found: Manifests) -> None:
    """The project's own apps in ``INSTALLED_APPS`` (``"emails.apps.EmailsConfig"`` →
    ``emails/``): folders of this repository that are Django apps."""
    text = read(path) or ""
    if "INSTALLED_APPS" not in text:
        return
    roots = {posixpath.dirname(p) for p in present if PurePosixPath(p).name == "manage.py"} | {""}
    for block in _INSTALLED_APPS.finditer(text):
        for app in _STRING.findall(block.group(1)):
            for root in roots:
                folder = posixpath.join(root, app.split(".")[0]) if root else app.split(".")[0]
                if f"{folder}/__init__.py" in present or f"{folder}/apps.py" in present:
                    found.framework("django", folder, f"{path}: INSTALLED_APPS has {app}")
                    break


def _pyproject(path: str, read: Read, present: set[str], found: Manifests) -> None:
    text = read(path)
    try:
        data = tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError:
        return
    folder = posixpath.dirname(path) or "."
    project = data.get("project")
    if not isinstance(project, dict):
        project = {}
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    name = project.get("name") or (poetry.get("name") if isinstance(poetry, dict) else None)
    if isinstance(name, str) and name:
        found.unit(folder, f"{path} is the Python project {name}")
        found.aliases.append(Alias(name, folder, f"{path}: project {name}", 1.0))
        package = _module_path(re.sub(r"[-.]", "_", name.lower()), folder, present)
        if package and not package.endswith(".py"):
            found.framework("python-package", package, f"{path}: the package of the project {name}")
    scripts = project.get("scripts")
    if not isinstance(scripts, dict):
        scripts = {}
    if isinstance(poetry, dict) and isinstance(poetry.get("scripts"), dict):
        scripts = {**poetry["scripts"], **scripts}
    for script, target in scripts.items():
        if isinstance(target, str):
            where = _module_path(target.split(":")[0], folder, present)
            if where:
                found.aliases.append(Alias(str(script), where, f"{path}: the command {script} runs {target}", 1.0))


def _module_path(module: str, base: str, present: set[str]) -> str | None:
    """``shop.tasks`` → ``shop/tasks.py`` or ``shop/tasks/`` (also under ``src/``), if there."""
    relative = module.replace(".", "/")
    for root in ([base] if base != "." else []) + ["", "src"]:
        stem = posixpath.join(root, relative) if root else relative
        if stem + ".py" in present:
            return stem + ".py"
        if stem + "/__init__.py" in present:
            return stem
    return None


def _go_mod(path: str, read: Read, found: Manifests) -> None:
    text = read(path) or ""
    match = re.search(r"^module\s+(\S+)", text, re.M)
    if not match:
        return
    parts = [p for p in match.group(1).split("/") if p and not re.fullmatch(r"v\d+", p)]
    folder = posixpath.dirname(path) or "."
    found.unit(folder, f"{path} is the Go module {match.group(1)}")
    if parts:
        found.aliases.append(Alias(parts[-1], folder, f"{path}: module {match.group(1)}", 1.0))


def _pom(path: str, read: Read, found: Manifests) -> None:
    text = read(path) or ""
    text = re.sub(r"<(parent|dependencies|dependencyManagement|build|profiles|plugins)>.*?</\1>", "", text, flags=re.S)
    match = re.search(r"<artifactId>\s*([^<\s]+)\s*</artifactId>", text)
    if match:
        folder = posixpath.dirname(path) or "."
        found.unit(folder, f"{path} is the Maven module {match.group(1)}")
        found.aliases.append(Alias(match.group(1), folder, f"{path}: artifact {match.group(1)}", 1.0))


def _cargo(path: str, read: Read, found: Manifests) -> None:
    try:
        data = tomllib.loads(read(path) or "")
    except tomllib.TOMLDecodeError:
        return
    package = data.get("package")
    if isinstance(package, dict) and isinstance(package.get("name"), str):
        folder = posixpath.dirname(path) or "."
        found.unit(folder, f"{path} is the crate {package['name']}")
        found.aliases.append(Alias(package["name"], folder, f"{path}: crate {package['name']}", 1.0))


def _gradle(path: str, read: Read, folders: dict[str, list[str]], found: Manifests) -> None:
    base = posixpath.dirname(path)
    for match in re.finditer(r"""["']:?([\w.-]+(?::[\w.-]+)*)["']""", " ".join(
        line for line in (read(path) or "").splitlines() if line.strip().startswith("include")
    )):
        folder = posixpath.join(base, match.group(1).replace(":", "/"))
        name = match.group(1).rsplit(":", 1)[-1]
        found.unit(folder, f"{path} includes the Gradle project {match.group(1)}")
        found.aliases.append(Alias(name, folder, f"{path}: project {match.group(1)}", 1.0))


def _procfile(path: str, read: Read, present: set[str], found: Manifests) -> None:
    base = posixpath.dirname(path) or "."
    for line in (read(path) or "").splitlines():
        process, sep, command = line.partition(":")
        if not sep or not process.strip() or process.strip().startswith("#"):
            continue
        target = _command_target(command.split(), base, present)
        if target:
            found.aliases.append(
                Alias(process.strip(), target, f"{path}: the {process.strip()} process runs {command.strip()}", 0.9,
                      command=True)
            )


def _command_target(argv: list[str], base: str, present: set[str]) -> str | None:
    """The file or package a process command runs (``manage.py run_worker`` → the
    management command's file; ``gunicorn shop.wsgi:app`` → the package ``shop``)."""
    for index, arg in enumerate(argv):
        if arg.endswith("manage.py") and index + 1 < len(argv):
            command = argv[index + 1]
            matches = [p for p in present if p.endswith(f"/management/commands/{command}.py")]
            if len(matches) == 1:
                return matches[0]
        candidate = posixpath.normpath(posixpath.join(base, arg)) if base != "." else posixpath.normpath(arg)
        if candidate in present and not arg.startswith("-"):
            return candidate
        module = arg.split("=", 1)[-1]
        if _MODULE.match(module):
            package = _module_path(module.split(":")[0].split(".")[0], base, present)
            if not package or package.endswith(".py"):
                package = _module_path(module.split(":")[0], base, present)
            where = package
            if where:
                return where
    return None


def _chart(path: str, read: Read, folders: dict[str, list[str]], found: Manifests) -> None:
    docs = _yaml(read(path) or "")
    if docs and isinstance(docs[0], dict) and isinstance(docs[0].get("name"), str):
        name = docs[0]["name"]
        _by_name(name, name, folders, found, f"{path}: Helm chart {name}")


def _kubernetes(path: str, read: Read, folders: dict[str, list[str]], found: Manifests) -> None:
    text = read(path)
    if not text or "kind:" not in text or "apiVersion" not in text:
        return
    if re.search(r"^apiVersion:\s*\S+", text, re.M) and re.search(r"^kind:\s*\w+", text, re.M):
        found.framework("kubernetes", posixpath.dirname(path) or ".", f"{path} holds Kubernetes resources")
    for doc in _yaml(text):
        if not isinstance(doc, dict) or str(doc.get("kind", "")).lower() not in _K8S_KINDS:
            continue
        metadata = doc.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        if not isinstance(name, str):
            continue
        evidence = f"{path}: {doc['kind']} {name}"
        before = len(found.aliases)
        _by_name(name, name, folders, found, evidence)
        if len(found.aliases) == before:
            for image in _images(doc):
                _by_name(name, _image_name(image), folders, found, f"{evidence} runs {image}")


def _images(doc: dict[str, object]) -> list[str]:
    """Every ``image:`` value in a resource, wherever its pod template nests it."""
    images: list[str] = []

    def visit(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "image" and isinstance(value, str):
                    images.append(value)
                else:
                    visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(doc.get("spec"))
    return images
