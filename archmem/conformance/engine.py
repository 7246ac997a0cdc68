"""One conformance run: read imports (cached per content), resolve them, lift them to
elements, compare with the model and the rules.

Pure apart from what is passed in: the file list, a content-hash function, a reader
and an optional cache, so tests and the benchmark drive it on any folder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from archmem.config import ConformanceConfig
from archmem.conformance.check import ignored_dependencies, mark_declared, mark_drawn, unevidenced, violations
from archmem.conformance.graph import FileImport, Lineage, build_graph, owners
from archmem.conformance.resolve import Resolver
from archmem.conformance.scan import EXTRACTOR_VERSION, FileImports, extract, language_of
from archmem.conformance.types import ConformanceReport, ImportCounts, Unresolved
from archmem.model.ownership import Ownership
from archmem.model.paths import compile_globs
from archmem.model.types import ArchitectureModel

UNRESOLVED_SHOWN = 200
"""Unresolved imports listed one by one (all are counted)."""


class ImportStore(Protocol):
    """Where extracted imports are kept between runs (``archmem.store.imports.ImportCache``)."""

    def get_many(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Any]: ...

    def put_many(self, rows: Sequence[tuple[str, str, Any]], *, needed: Sequence[tuple[str, str]] = ()) -> None: ...


def read_imports(
    paths: Sequence[str], hashes: Callable[[Sequence[str]], Mapping[str, str]], read: Callable[[str], bytes | None],
    cache: ImportStore | None, counts: ImportCounts,
) -> dict[str, FileImports]:
    """Each file's imports, parsed only where the cache has no row for its content."""
    languages = {path: language_of(path) for path in paths}
    blobs = hashes(paths)
    keys = {path: (blobs[path], f"{languages[path]}:{EXTRACTOR_VERSION}") for path in paths if path in blobs}
    cached = cache.get_many(list(keys.values())) if cache is not None else {}
    scanned: dict[str, FileImports] = {}
    new_rows = []
    for path in paths:
        language = languages[path]
        assert language is not None
        counts.languages[language] = counts.languages.get(language, 0) + 1
        key = keys.get(path)
        if key is not None and key in cached:
            scanned[path] = FileImports.from_json(cached[key])
            continue
        data = read(path)
        counts.read += 1
        if data is None:
            scanned[path] = FileImports(language, error="cannot be read (or larger than 2 MiB)")
            continue
        found = extract(language, data.decode("utf-8", errors="replace"))
        scanned[path] = found
        if key is not None:
            new_rows.append((*key, found.to_json()))
    if cache is not None:
        cache.put_many(new_rows, needed=list(keys.values()))
    return scanned


def check_conformance(
    *,
    files: Sequence[str],
    hashes: Callable[[Sequence[str]], Mapping[str, str]],
    read: Callable[[str], bytes | None],
    model: ArchitectureModel,
    ownership: Ownership,
    config: ConformanceConfig,
    cache: ImportStore | None = None,
    config_source: str | None = None,
) -> ConformanceReport:
    """The conformance report for the repository's ``files`` now."""
    ignored = compile_globs(list(config.ignore))
    is_test = compile_globs(list(config.test_code))
    generated = ownership.generated
    readable = [f for f in files if language_of(f) is not None and not ignored(f)]
    tests = [f for f in readable if is_test(f)]
    sources = [f for f in readable if f not in generated and not is_test(f)]
    report = ConformanceReport(counts=ImportCounts(files=len(sources), tests=len(tests),
                                                   generated=len(readable) - len(tests) - len(sources)))
    counts = report.counts
    scanned = read_imports(sources, hashes, read, cache, counts)

    def read_text(path: str) -> str | None:
        data = read(path)
        return data.decode("utf-8", errors="replace") if data is not None else None

    resolver = Resolver(files, scanned, read_text, python_roots=config.python_roots)
    internal: list[FileImport] = []
    for path in sources:
        found = scanned[path]
        if found.error:
            report.errors.append((path, found.error))
        for ref in found.imports:
            counts.imports += 1
            resolution = resolver.resolve(path, found.language, ref)
            if resolution.status == "internal":
                counts.internal += 1
                internal.append(FileImport(path, ref.line, ref.spec, resolution.targets))
            elif resolution.status == "external":
                counts.external += 1
            else:
                counts.unresolved += 1
                if len(report.unresolved) < UNRESOLVED_SHOWN:
                    report.unresolved.append(Unresolved(path, ref.line, ref.spec, resolution.reason))

    lineage = Lineage(model)
    graph = build_graph(internal, owners(ownership.files, lineage), lineage, counts, generated=generated)
    if config.network:
        from archmem.conformance.network import map_workloads, network_sites, read_deployment

        deployment = read_deployment([f for f in files if not ignored(f) and not is_test(f)], read_text)
        mapped = map_workloads(deployment, ownership.files, lineage)
        calls = network_sites(deployment, mapped, lineage)
        graph.add_sites(calls)
        counts.manifests, counts.calls = deployment.files, len(calls)
        unmapped = sorted({c.caller for c in deployment.calls if c.caller in mapped.unmapped}
                          | {c.callee for c in deployment.calls if c.callee in mapped.unmapped})
        if unmapped:
            report.warnings.append(
                f"{len(unmapped)} deployed services that call or are called map to no element "
                f"({', '.join(unmapped[:5])}{', …' if len(unmapped) > 5 else ''}): give their code to an element, "
                "or name an element like them, to check their calls")
    report.dependencies = graph.dependencies()
    mark_declared(report.dependencies, model, lineage)
    read_code = {e: any(language_of(f) for f in ownership.files.get(e, ())) for e in ownership.files}
    report.unevidenced = unevidenced(
        report.dependencies, model, lineage, owns_code=lambda e: bool(ownership.files.get(e)),
        readable=lambda e: read_code.get(e, False),
    )
    report.dependencies, report.ignored = ignored_dependencies(report.dependencies, model, lineage, config,
                                                              source=config_source)
    report.cycles = graph.cycles(report.dependencies)
    mark_drawn(report.cycles, model, lineage)
    report.violations = violations(report.dependencies, model, lineage, config, source=config_source,
                                   cycles=report.cycles)
    if counts.to_unowned:
        report.warnings.append(
            f"{counts.to_unowned} imports reach code no element owns (e.g. {graph.to_unowned[0]} → "
            f"{graph.to_unowned[0].target}); give that code to an element to check them"
        )
    return report
