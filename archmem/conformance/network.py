"""Dependencies over the network, read from deployment manifests: services that call
each other show no import, yet their manifests name whom they call.

What counts as a call, each at its manifest line:

* Kubernetes: a workload (Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod) whose
  container sets an environment variable to ``host:port`` or a URL, where ``host`` is a
  Service or workload of the same manifests (``CURRENCY_SERVICE_ADDR:
  "currencyservice:7000"``); a Service reaches the workload its selector picks.
* Compose: a service's ``depends_on`` and ``links``, and environment values naming
  another service as above.

A workload is lifted to the element that owns its code: the folder it is built from
(compose ``build``, a skaffold artifact of its image), else a folder named like it
(``src/currencyservice``), else an element named like it (``Currency Service``). What
maps to no element is counted, never guessed. Helm templates and other files that are
not plain YAML are skipped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from archmem.conformance.graph import Lineage
from archmem.conformance.types import Site
from archmem.values import Record, Value

WORKLOADS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod", "ReplicaSet"})
_COMPOSE = re.compile(r"(?:docker-)?compose(?:[.-][\w.-]+)?\.ya?ml")
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:[^@/\s]+@)?(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*)(?::\d+)?(?:/\S*)?$")
MAX_MANIFEST_BYTES = 1 << 20


@dataclass(frozen=True, repr=False, eq=False)
class Call(Value):
    """``caller`` (a workload or compose service) names ``callee`` at ``file:line``."""

    caller: str
    callee: str
    file: str
    line: int
    spec: str
    """What the manifest says: ``CURRENCY_SERVICE_ADDR=currencyservice:7000``, ``depends_on``."""


@dataclass(repr=False, eq=False)
class Deployment(Record):
    """What the manifests of one repository deploy and who calls whom."""

    calls: list[Call] = field(default_factory=list)
    built_from: dict[str, str] = field(default_factory=dict)
    """Compose service or skaffold image name → the folder it is built from."""
    images: dict[str, str] = field(default_factory=dict)
    """Kubernetes workload → the short name of its first container's image."""
    services: dict[str, str] = field(default_factory=dict)
    """A Kubernetes Service's name → the workload its selector picks (or itself)."""
    workloads: set[str] = field(default_factory=set)
    files: int = 0


def _documents(text: str) -> list[tuple[int, str]]:
    """The documents of a YAML stream with the 0-based line each starts at."""
    docs, start, lines = [], 0, text.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("---"):
            docs.append((start, "\n".join(lines[start:number])))
            start = number + 1
    docs.append((start, "\n".join(lines[start:])))
    return docs


def _load(text: str) -> object:
    import yaml

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None


def _line(lines: Sequence[str], start: int, *needles: str) -> int:
    """The 1-based line at or after ``start`` holding every needle in turn (a name, then
    its value), else the first needle's line, else ``start + 1``."""
    first = None
    for number in range(start, len(lines)):
        if needles[0] in lines[number]:
            first = first or number + 1
            if len(needles) == 1:
                return number + 1
            for after in range(number, min(number + 4, len(lines))):
                if needles[1] in lines[after]:
                    return after + 1
    return first or start + 1


def read_deployment(files: Iterable[str], read: Callable[[str], str | None]) -> Deployment:
    """Every call the Kubernetes, compose and skaffold manifests among ``files`` state."""
    found = Deployment()
    pending: list[tuple[str, str, str, int, str]] = []  # (caller, host, file, line, spec)
    for path in files:
        name = posixpath.basename(path).lower()
        if not name.endswith((".yaml", ".yml")):
            continue
        text = read(path)
        if not text or len(text) > MAX_MANIFEST_BYTES or "{{" in text:
            continue
        lines = text.splitlines()
        if _COMPOSE.fullmatch(name):
            found.files += 1
            _compose(path, text, lines, found, pending)
            continue
        if "kind:" not in text:  # no Kubernetes or skaffold document: not parsed at all
            continue
        counted = False
        for start, body in _documents(text):
            doc = _load(body)
            if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
                continue
            kind = doc["kind"]
            if kind in WORKLOADS or kind in ("Service", "Config"):
                counted = True
            if kind == "Config" and str(doc.get("apiVersion", "")).startswith("skaffold/"):
                _skaffold(path, doc, found)
            elif kind == "Service":
                _service(doc, found)
            elif kind in WORKLOADS:
                _workload(path, doc, lines, start, found, pending)
        found.files += counted
    known = found.workloads | set(found.services)
    for caller, host, path, line, spec in pending:
        callee = found.services.get(host, host)
        if host in known and callee != caller:
            found.calls.append(Call(caller, callee, path, line, spec))
    return found


def _skaffold(path: str, doc: dict[str, Any], found: Deployment) -> None:
    build = doc.get("build")
    artifacts = build.get("artifacts") if isinstance(build, dict) else None
    base = posixpath.dirname(path)
    for artifact in artifacts if isinstance(artifacts, list) else ():
        if isinstance(artifact, dict) and isinstance(artifact.get("image"), str):
            context = posixpath.normpath(posixpath.join(base, str(artifact.get("context", "."))))
            if not context.startswith(".."):
                found.built_from[artifact["image"]] = "" if context == "." else context


def _service(doc: dict[str, Any], found: Deployment) -> None:
    metadata, spec = doc.get("metadata"), doc.get("spec")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str):
        return
    selector = spec.get("selector") if isinstance(spec, dict) else None
    picked = selector.get("app") if isinstance(selector, dict) else None
    found.services[name] = picked if isinstance(picked, str) else name


def _containers(node: object) -> Iterable[dict[str, Any]]:
    """Every container of a workload, wherever its pod template nests them."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("containers", "initContainers") and isinstance(value, list):
                yield from (c for c in value if isinstance(c, dict))
            else:
                yield from _containers(value)
    elif isinstance(node, list):
        for item in node:
            yield from _containers(item)


def _workload(path: str, doc: dict[str, Any], lines: Sequence[str], start: int, found: Deployment,
              pending: list[tuple[str, str, str, int, str]]) -> None:
    metadata = doc.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str):
        return
    found.workloads.add(name)
    for container in _containers(doc.get("spec")):
        image = container.get("image")
        if isinstance(image, str):
            short = image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]
            found.images.setdefault(name, short)
        for variable in container.get("env") or ():
            if isinstance(variable, dict) and isinstance(variable.get("value"), str):
                _address(name, str(variable.get("name")), variable["value"], path, lines, start, pending)


def _address(caller: str, variable: str, value: str, path: str, lines: Sequence[str], start: int,
             pending: list[tuple[str, str, str, int, str]]) -> None:
    match = _ADDRESS.match(value.strip())
    if match and (":" in value or "://" in value):
        pending.append((caller, match.group("host").lower(), path, _line(lines, start, variable, value),
                        f"{variable}={value}"))


def _compose(path: str, text: str, lines: Sequence[str], found: Deployment,
             pending: list[tuple[str, str, str, int, str]]) -> None:
    doc = _load(text)
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict):
        return
    base = posixpath.dirname(path)
    for service, spec in services.items():
        if not isinstance(spec, dict):
            continue
        name = str(service)
        found.workloads.add(name)
        start = _line(lines, 0, f"{name}:") - 1
        build = spec.get("build")
        context = build if isinstance(build, str) else build.get("context") if isinstance(build, dict) else None
        if isinstance(context, str) and "://" not in context:
            folder = posixpath.normpath(posixpath.join(base, context))
            if not folder.startswith(".."):
                found.built_from[name] = "" if folder == "." else folder
        for key in ("depends_on", "links"):
            named = spec.get(key)
            for other in (named if isinstance(named, (list, dict)) else ()):
                other = str(other).split(":", 1)[0]
                pending.append((name, other, path, _line(lines, start, f"{key}", other), key))
        environment = spec.get("environment")
        pairs = (environment.items() if isinstance(environment, dict)
                 else (str(e).split("=", 1) for e in environment) if isinstance(environment, list) else ())
        for pair in pairs:
            variable, value = [*pair, ""][:2] if not isinstance(pair, tuple) else pair
            if isinstance(value, str):
                _address(name, str(variable), value, path, lines, start, pending)


def _words(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


@dataclass(repr=False, eq=False)
class WorkloadOwners(Record):
    """Workload → element, and the workloads no element could be found for."""

    owner: dict[str, str] = field(default_factory=dict)
    unmapped: set[str] = field(default_factory=set)


def map_workloads(deployment: Deployment, files_of: Mapping[str, Sequence[str]], lineage: Lineage) -> WorkloadOwners:
    """Each workload's element: the one owning most of the folder it is built from (the
    deepest of equals), else of a folder named like it, else the element named like it."""
    result = WorkloadOwners()
    if not deployment.workloads:
        return result
    folders: dict[str, str] = {}
    seen: set[str] = set()  # a folder's parents were walked when it was first met
    for owned in files_of.values():
        for path in owned:
            above = posixpath.dirname(path)
            while above and above not in seen:
                seen.add(above)
                folders.setdefault(_words(posixpath.basename(above)), above)
                above = posixpath.dirname(above)
    names: dict[str, str] = {}
    for named in lineage.chain:
        for label in (named.rsplit(".", 1)[-1], lineage.name(named)):
            for key in {_words(label), _words(label).removesuffix("service")}:
                if key:
                    names.setdefault(key, named)
    for workload in sorted(deployment.workloads):
        image = deployment.images.get(workload)
        folder = deployment.built_from.get(workload)
        if folder is None and image is not None:
            folder = deployment.built_from.get(image)
        if folder is None:
            folder = folders.get(_words(workload)) or (folders.get(_words(image)) if image else None)
        element = _owner_of_folder(folder, files_of, lineage) if folder is not None else None
        if element is None:
            key = _words(workload)
            element = names.get(key) or names.get(key.removesuffix("service"))
        if element is None:
            result.unmapped.add(workload)
        else:
            result.owner[workload] = element
    return result


def _owner_of_folder(folder: str, files_of: Mapping[str, Sequence[str]], lineage: Lineage) -> str | None:
    prefix = f"{folder}/" if folder else ""
    counts = {e: sum(1 for f in owned if f.startswith(prefix)) for e, owned in files_of.items()}
    best = max(counts.values(), default=0)
    if not best:
        return None
    return max((e for e, n in counts.items() if n == best), key=lambda e: (len(lineage.chain.get(e, ())), e))


def network_sites(deployment: Deployment, owners: WorkloadOwners, lineage: Lineage) -> list[tuple[str, str, Site]]:
    """(source element, target element, site) for each call between two elements that
    are neither the same nor one inside the other."""
    found = []
    for call in deployment.calls:
        source, target = owners.owner.get(call.caller), owners.owner.get(call.callee)
        if source is None or target is None or lineage.related(source, target):
            continue
        found.append((source, target, Site(call.file, call.line, call.spec, call.callee, kind="network")))
    return found
