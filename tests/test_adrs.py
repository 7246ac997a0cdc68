"""ADR readers: the three corpus folders as Structurizr reads them, detection, errors, aliases."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from archmem.errors import ArchmemError, ModelError
from archmem.model.adrs import (
    decision_aliases,
    detect_format,
    find_decision_folders,
    normalize_format,
    read_decisions,
)
from archmem.model.types import Decision

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "c4-corpus"
DECISIONS = CORPUS / "structurizr-dsl" / "decisions"


@pytest.fixture
def corpus() -> Path:
    if not DECISIONS.is_dir():
        pytest.skip(f"the C4 corpus is not at {DECISIONS}")
    return DECISIONS


def write(folder: Path, name: str, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def by_id(decisions: list[Decision]) -> dict[str, Decision]:
    return {d.id: d for d in decisions}


ADRTOOLS_RECORD = "# {n}. {title}\n\nDate: 2020-03-0{n}\n\n## Status\n\n{status}\n\n## Context\n\nWhy.\n"


# ---- the corpus (what Structurizr's importers give) --------------------------------------


def test_adrtools_corpus(corpus: Path) -> None:
    decisions = read_decisions(corpus / "adrtools", "adrtools", element="softwareSystem")
    assert [d.id for d in decisions] == [str(n) for n in range(1, 11)]  # numeric order, no leading zeros
    first, fourth, tenth = by_id(decisions)["1"], by_id(decisions)["4"], by_id(decisions)["10"]
    assert first.title == "Record architecture decisions"
    assert first.status == "Accepted"
    assert first.date == dt.date(2016, 2, 12)
    assert fourth.title == "Markdown format"
    assert fourth.status == "Superseded"  # written "Superceded by [10. …]"
    assert tenth.title == "AsciiDoc format" and tenth.date == dt.date(2018, 8, 11)
    assert all(d.format == "adrtools" and d.element == "softwareSystem" for d in decisions)
    assert first.path == (corpus / "adrtools" / "0001-record-architecture-decisions.md").resolve().as_posix()


def test_madr_corpus(corpus: Path) -> None:
    decisions = read_decisions(corpus / "madr", "madr")
    assert len(decisions) == 19
    assert [d.id for d in decisions] == [str(n) for n in range(0, 19)]
    found = by_id(decisions)
    assert found["0"].title == "Use Markdown Any Decision Records"
    assert found["3"].title == "Write Own MADR Tooling"
    assert found["3"].status == "on hold"  # from the front matter
    assert found["8"].status == "accepted"  # its body quotes "status: on hold" in a code block
    assert found["18"].title == 'Use "Confirmation" as Heading'  # after HTML comments
    assert all(d.date is None for d in decisions)  # no dates in these records
    assert {d.status for d in decisions} == {"accepted", "on hold"}


def test_log4brains_corpus(corpus: Path) -> None:
    decisions = read_decisions(corpus / "log4brains", "log4brains", element="component")
    assert [d.id for d in decisions] == [
        "20240111-use-log4brains-to-manage-the-adrs",
        "20240111-use-markdown-architectural-decision-records",
        "20240113-decision-3",
        "20240114-decision-4",
    ]
    found = by_id(decisions)
    first = found["20240111-use-log4brains-to-manage-the-adrs"]
    assert first.title == "Use Log4brains to manage the ADRs"
    assert first.status == "accepted"
    assert first.date == dt.date(2024, 1, 10)  # "- Date:" wins over the file name
    assert found["20240113-decision-3"].status == "superseded"  # "superseded by [..](..)"
    assert found["20240113-decision-3"].date == dt.date(2024, 1, 13)  # from the file name
    assert found["20240114-decision-4"].title == "Decision 4"


def test_corpus_detection(corpus: Path) -> None:
    for fmt, count in (("adrtools", 10), ("madr", 19), ("log4brains", 4)):
        assert detect_format(corpus / fmt) == fmt
        decisions = read_decisions(corpus / fmt)
        assert len(decisions) == count
        assert {d.format for d in decisions} == {fmt}
    assert detect_format(corpus) is None  # only sub-folders there
    assert read_decisions(corpus) == []


# ---- adr-tools ---------------------------------------------------------------------------


def test_adrtools_statuses_default_and_spelling(tmp_path: Path) -> None:
    write(tmp_path, "0001-a.md", ADRTOOLS_RECORD.format(n=1, title="First", status="Accepted"))
    write(tmp_path, "0002-b.md", ADRTOOLS_RECORD.format(n=2, title="Second", status="Superceded by [3](0003-c.md)"))
    write(tmp_path, "0003-c.md", "# 3. Third\n\nDate: 2020-03-03\n\n## Context\n\nNo status section.\n")
    write(tmp_path, "0012-d.md", ADRTOOLS_RECORD.format(n=2, title="Twelfth", status="**Proposed**"))
    write(tmp_path, "README.md", "# Decisions\n\nAn index, not a record.\n")
    decisions = read_decisions(tmp_path)
    assert [d.id for d in decisions] == ["1", "2", "3", "12"]  # 12 after 3: numeric, not text order
    assert [d.status for d in decisions] == ["Accepted", "Superseded", "Proposed", "Proposed"]
    assert decisions[0].format == "adrtools"
    assert decisions[3].title == "Twelfth"


def test_adrtools_without_date_and_with_crlf(tmp_path: Path) -> None:
    write(tmp_path, "0001-a.md", b"# 1. Windows line ends\r\n\r\n## Status\r\n\r\nAccepted\r\n")
    (decision,) = read_decisions(tmp_path, "adrtools")
    assert decision.title == "Windows line ends"
    assert decision.status == "Accepted"
    assert decision.date is None


def test_adrtools_bad_date_points_at_the_value(tmp_path: Path) -> None:
    path = write(tmp_path, "0001-a.md", "# 1. A\n\nDate: 12th of May\n\n## Status\n\nAccepted\n")
    with pytest.raises(ModelError) as info:
        read_decisions(tmp_path, "adrtools")
    err = info.value
    assert (err.file, err.line, err.column) == (path.resolve().as_posix(), 3, 7)
    assert "12th of May" in err.message


def test_adrtools_record_without_title_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "0001-a.md", "Date: 2020-01-01\n\n## Status\n\nAccepted\n")
    with pytest.raises(ModelError) as info:
        read_decisions(tmp_path, "adrtools")
    assert (info.value.file, info.value.line, info.value.column) == (path.resolve().as_posix(), 1, 1)
    assert "title" in info.value.message


def test_record_that_is_not_utf8_names_line_and_column(tmp_path: Path) -> None:
    write(tmp_path, "0001-a.md", b"# 1. A\n\nDate: 2020-01-01\nCaf\xe9\n")
    with pytest.raises(ModelError) as info:
        read_decisions(tmp_path, "adrtools")
    assert (info.value.line, info.value.column) == (4, 4)
    assert "UTF-8" in info.value.message


def test_duplicate_numbers_are_an_error(tmp_path: Path) -> None:
    write(tmp_path, "0001-a.md", ADRTOOLS_RECORD.format(n=1, title="A", status="Accepted"))
    write(tmp_path, "0001-b.md", ADRTOOLS_RECORD.format(n=1, title="B", status="Accepted"))
    with pytest.raises(ModelError, match="used twice") as info:
        read_decisions(tmp_path, "adrtools")
    assert info.value.file is not None and info.value.file.endswith("0001-b.md")


# ---- a record that cannot be read, while loading a model (issue 17, item 10) --------------

BAD_RECORDS = {
    "not UTF-8": ("0002-b.md", b"# 2. Caf\xe9\n\nDate: 2020-01-01\n"),
    "no title": ("0002-b.md", b"Date: 2020-01-01\n\n## Status\n\nAccepted\n"),
    "a bad date": ("0002-b.md", b"# 2. B\n\nDate: someday\n"),
    "a duplicate id": ("0001-b.md", b"# 1. Again\n\nDate: 2020-01-01\n"),
}


@pytest.mark.parametrize("bad", sorted(BAD_RECORDS))
def test_with_warn_a_bad_record_is_skipped_and_the_rest_is_read(tmp_path: Path, bad: str) -> None:
    write(tmp_path, "0001-a.md", ADRTOOLS_RECORD.format(n=1, title="A", status="Accepted"))
    path = write(tmp_path, *BAD_RECORDS[bad])
    write(tmp_path, "0003-c.md", ADRTOOLS_RECORD.format(n=3, title="C", status="Accepted"))
    warnings: list[str] = []
    decisions = read_decisions(tmp_path, "adrtools", warn=warnings.append)
    assert [d.id for d in decisions] == ["1", "3"]
    [warning] = warnings
    assert warning.startswith(path.resolve().as_posix() + ":") and warning.endswith("this decision record is skipped")


@given(data=st.binary(max_size=60))
def test_any_bytes_in_a_record_give_decisions_or_a_warning_never_an_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        write(Path(folder), "0001-a.md", ADRTOOLS_RECORD.format(n=1, title="A", status="Accepted"))
        write(Path(folder), "0002-b.md", data)
        warnings: list[str] = []
        decisions = read_decisions(Path(folder), "adrtools", warn=warnings.append)
        assert decisions[0].id == "1"
        assert len(decisions) + len(warnings) == 2


# ---- MADR --------------------------------------------------------------------------------


def test_madr_front_matter_and_madr2_lines(tmp_path: Path) -> None:
    write(
        tmp_path,
        "0001-use-postgres.md",
        '---\nstatus: "proposed"\ndate: 2023-05-04\ndeciders: {list everyone}\n---\n# Use PostgreSQL\n',
    )
    write(
        tmp_path,
        "0002-use-kafka.md",
        "# Use Kafka\n\n* Status: deprecated\n* Date: 2021-02-03\n\n## Context\n\n* Status: ignored here\n",
    )
    write(tmp_path, "0003-no-heading-at-all.md", "---\ndate: {YYYY-MM-DD when decided}\n---\nJust text.\n")
    write(tmp_path, "template.md", "# {short title}\n")
    decisions = by_id(read_decisions(tmp_path))
    assert set(decisions) == {"1", "2", "3"}
    assert decisions["1"].format == "madr"
    assert (decisions["1"].title, decisions["1"].status, decisions["1"].date) == (
        "Use PostgreSQL",
        "proposed",
        dt.date(2023, 5, 4),
    )
    assert (decisions["2"].status, decisions["2"].date) == ("deprecated", dt.date(2021, 2, 3))
    assert decisions["3"].title == "No heading at all"  # from the file name
    assert decisions["3"].status == "accepted"  # MADR's default
    assert decisions["3"].date is None  # a template placeholder, ignored like Structurizr does


# ---- Log4brains --------------------------------------------------------------------------


def test_log4brains_front_matter_and_defaults(tmp_path: Path) -> None:
    write(tmp_path, "20230102-front.md", "---\nstatus: accepted\ndate: 2023-01-05\n---\n# Front matter\n")
    write(tmp_path, "20230103-bare.md", "# Bare\n\nNo status.\n")
    write(tmp_path, "index.md", "# Index\n")
    decisions = by_id(read_decisions(tmp_path))
    assert decisions["20230102-front"].status == "accepted"
    assert decisions["20230102-front"].date == dt.date(2023, 1, 5)
    assert decisions["20230103-bare"].status == ""
    assert decisions["20230103-bare"].date == dt.date(2023, 1, 3)
    assert {d.format for d in decisions.values()} == {"log4brains"}


def test_log4brains_bad_date(tmp_path: Path) -> None:
    write(tmp_path, "20230102-a.md", "# A\n\n- Status: accepted\n- Date: soon\n")
    with pytest.raises(ModelError) as info:
        read_decisions(tmp_path, "log4brains")
    assert (info.value.line, info.value.column) == (4, 9)
    write(tmp_path, "20230102-a.md", "# A\n")
    write(tmp_path, "20231399-b.md", "# B\n")
    with pytest.raises(ModelError, match="valid date"):
        read_decisions(tmp_path, "log4brains")


# ---- the folder, the format --------------------------------------------------------------


def test_missing_folder_names_it(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="does not exist") as info:
        read_decisions(tmp_path / "nowhere")
    assert "nowhere" in str(info.value)
    file = write(tmp_path, "file.md", "x")
    with pytest.raises(ModelError, match="not a folder"):
        read_decisions(file)


def test_empty_folder_has_no_decisions(tmp_path: Path) -> None:
    assert detect_format(tmp_path) is None
    assert read_decisions(tmp_path) == []
    assert read_decisions(tmp_path, "madr") == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("MADR", "madr"),
        ("adr-tools", "adrtools"),
        ("Log4Brains", "log4brains"),
        ("com.structurizr.importer.documentation.MadrDecisionImporter", "madr"),
        ("com.structurizr.importer.documentation.AdrToolsDecisionImporter", "adrtools"),
    ],
)
def test_format_names(given: str, expected: str) -> None:
    assert normalize_format(given) == expected


def test_unknown_format_suggests_the_closest(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="did you mean madr"):
        read_decisions(tmp_path, "madrr")


def test_detection_tells_adrtools_from_madr(tmp_path: Path) -> None:
    adrtools = tmp_path / "a"
    write(adrtools, "0001-a.md", "# Unnumbered title\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n")
    assert detect_format(adrtools) == "adrtools"  # adr-tools layout without the number
    madr = tmp_path / "m"
    write(madr, "0001-a.md", "# 1. Numbered but\n")
    write(madr, "0002-b.md", "---\nstatus: accepted\n---\n# Front matter\n")
    write(madr, "0003-c.md", "# Plain\n")
    assert detect_format(madr) == "madr"
    log4brains = tmp_path / "l"
    write(log4brains, "20200101-a.md", "# A\n")
    assert detect_format(log4brains) == "log4brains"


def test_errors_are_archmem_errors(tmp_path: Path) -> None:
    write(tmp_path, "0001-a.md", "")
    with pytest.raises(ArchmemError):
        read_decisions(tmp_path, "adrtools")


# ---- finding folders, aliases ------------------------------------------------------------


def test_find_decision_folders(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "adr", "0001-a.md", ADRTOOLS_RECORD.format(n=1, title="A", status="Accepted"))
    (tmp_path / "docs" / "decisions").mkdir(parents=True)  # exists but holds no record
    write(tmp_path / "decisions", "README.md", "# not a record\n")
    write(tmp_path / "architecture" / "records", "0001-x.md", "# X\n")
    write(tmp_path, ".adr-dir", "architecture/records\n")
    write(tmp_path / "l4b", "20200101-a.md", "# A\n")
    write(tmp_path, ".log4brains.yml", "project:\n  name: x\n  adrFolder: ./l4b\n")
    found = find_decision_folders(tmp_path)
    assert found == [
        (tmp_path / "architecture" / "records").resolve(),
        (tmp_path / "l4b").resolve(),
        (tmp_path / "docs" / "adr").resolve(),
    ]


def test_find_decision_folders_none(tmp_path: Path) -> None:
    assert find_decision_folders(tmp_path) == []


def test_aliases_of_a_numbered_decision() -> None:
    decision = Decision(id="17", title="Header Limits", path="/r/docs/adr/0017-header-limits.md")
    aliases = decision_aliases(decision)
    assert {"ADR-17", "ADR-017", "ADR-0017", "0017", "17", "header limits"} <= aliases
    assert "0017-header-limits" in aliases


def test_aliases_of_a_slug_decision() -> None:
    decision = Decision(id="20240113-decision-3", title="Decision 3", path="/r/20240113-decision-3.md")
    assert decision_aliases(decision) == {"20240113-decision-3", "decision-3", "decision 3"}
