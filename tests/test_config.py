from __future__ import annotations

from pathlib import Path

import pytest

from archmem.config import Config, load_config
from archmem.config_template import CONFIG_TEMPLATE
from archmem.errors import ConfigError


def test_defaults_are_designs_numbers(tmp_path: Path):
    config = load_config(tmp_path, env={})
    assert config.model is None
    assert config.store.path == ".archmem/archmem.db"
    assert config.embeddings.provider == "none"
    assert (config.drift.min_lines, config.drift.churn_ratio) == (20, 0.25)
    assert (config.drift.min_file_events, config.drift.file_event_ratio) == (1, 0.2)
    assert config.source is None


def test_the_commented_template_is_the_defaults(tmp_path: Path):
    (tmp_path / "archmem.toml").write_text(CONFIG_TEMPLATE)
    loaded = load_config(tmp_path, env={})
    assert loaded == Config()


def test_archmem_toml_over_pyproject_and_environment_over_both(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.archmem]\nmodel = "a.dsl"\n[tool.archmem.drift]\nmin_lines = 5\nchurn_ratio = 0.5\n'
    )
    config = load_config(tmp_path, env={})
    assert (config.model, config.drift.min_lines, config.drift.churn_ratio) == ("a.dsl", 5, 0.5)
    assert config.source.endswith("pyproject.toml")

    (tmp_path / "archmem.toml").write_text("[drift]\nmin_lines = 7\n")
    config = load_config(tmp_path, env={})
    assert (config.model, config.drift.min_lines, config.drift.churn_ratio) == ("a.dsl", 7, 0.5)
    assert config.source.endswith("archmem.toml")

    env = {
        "ARCHMEM_DRIFT_MIN_LINES": "9",
        "ARCHMEM_MODEL": "b.dsl",
        "ARCHMEM_CODE_IGNORE": "vendor/**, gen/**",
        "ARCHMEM_EMBEDDINGS_PROVIDER": "ollama",
    }
    config = load_config(tmp_path, env=env)
    assert config.drift.min_lines == 9 and config.model == "b.dsl"
    assert config.code.ignore == ["vendor/**", "gen/**"]
    assert config.embeddings.provider == "ollama"


def test_unknown_setting_names_the_closest(tmp_path: Path):
    (tmp_path / "archmem.toml").write_text("[drift]\nmin_line = 3\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    assert "drift.min_line" in str(info.value) and "drift.min_lines" in str(info.value)
    assert "archmem.toml" in str(info.value)


def test_wrong_type_and_value_are_explained(tmp_path: Path):
    (tmp_path / "archmem.toml").write_text('[embeddings]\nprovider = "cohere"\n[drift]\nmin_lines = "lots"\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    text = str(info.value)
    assert "embeddings.provider" in text and "cohere" in text
    assert "drift.min_lines" in text and "lots" in text


def test_toml_syntax_error_gives_file_line_column(tmp_path: Path):
    (tmp_path / "archmem.toml").write_text('[store]\npath = ".archmem/x.db"\nbusy_timeout_ms = = 3\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    assert f"{tmp_path / 'archmem.toml'}:3:" in str(info.value)


def test_unknown_environment_variable_is_an_error_with_a_suggestion(tmp_path: Path):
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={"ARCHMEM_DRIFT_MINLINES": "3"})
    assert "ARCHMEM_DRIFT_MIN_LINES" in str(info.value)


def test_bad_environment_value_is_an_error(tmp_path: Path):
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={"ARCHMEM_DRIFT_CHURN_RATIO": "-1"})
    assert "drift.churn_ratio" in str(info.value)


def test_an_unknown_key_with_a_dot_is_named_at_its_line_not_a_crash(tmp_path: Path):
    # element ids hold dots: written under the wrong table they must not crash the message
    (tmp_path / "archmem.toml").write_text(
        '[recall]\nhop_weight = 0.5\n\n[conformance]\nbriefings = true\n"shop.web" = ["web/**"]\nbriefing = false\n'
    )
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env={})
    message = str(raised.value)
    assert "line 6: unknown setting 'conformance.\"shop.web\"'" in message
    assert "[paths], at the top level" in message
    assert "line 7: unknown setting 'conformance.briefing'; did you mean 'conformance.briefings'" in message


def test_an_unknown_key_in_pyproject_is_named_at_its_line(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.archmem.drift]\nmin_line = 5\n')
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env={})
    assert "line 5: unknown setting 'drift.min_line'; did you mean 'drift.min_lines'" in str(raised.value)


def test_every_default_setting_passes_the_checks_a_given_one_must():
    """A section built with its defaults is not checked again (every command builds them
    all), so the defaults themselves must hold: each as its type and within its bounds."""
    import dataclasses

    from archmem import config as settings
    from archmem.config_schema import Problem, Section, _check, fields_of

    sections = [value for value in vars(settings).values()
                if isinstance(value, type) and issubclass(value, Section) and value is not Section]
    assert len(sections) >= 15
    for section in sections:
        for spec, field in zip(fields_of(section), [f for f in dataclasses.fields(section)
                                                    if not f.metadata.get("internal")], strict=True):
            problems: list[Problem] = []
            value = field.default_factory() if field.default is dataclasses.MISSING else field.default
            assert _check(value, spec.annotation, spec.meta, (spec.key,), problems) == value
            assert problems == [] or spec.meta.get("check"), (section.__name__, spec.name, problems)


def test_a_section_built_directly_checks_what_it_is_given_but_not_its_defaults():
    from archmem.config import IgnoredDependencyRule, RecallConfig
    from archmem.errors import ConfigError

    assert RecallConfig().candidates == 100
    with pytest.raises(ConfigError, match="candidates"):
        RecallConfig(candidates=0)
    with pytest.raises(ConfigError, match="reason"):
        IgnoredDependencyRule()  # its default reason is refused by its own check: it must be given
