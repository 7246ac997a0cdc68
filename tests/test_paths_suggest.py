"""``archmem paths suggest``: the right folder or file for the elements that own code,
nothing for external ones, and ``--write`` recording them in archmem.toml's ``[paths]``
table without touching the model file (issue 13, item 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from archmem.config import load_config
from archmem.escape import toml_string as quote
from archmem.onboarding.names import similarity, words
from archmem.onboarding.rank import name_score
from archmem.onboarding.table import render_table, replace_table
from archmem.workspace import Workspace

from . import repos
from .conftest import REPO_ROOT


def suggested(root: Path, *elements: str) -> tuple[dict[str, list[str]], dict]:
    result = Workspace.open(root, env={}).suggest_paths(elements).to_dict()
    return {s["element"]: s["paths"] for s in result["suggestions"]}, result


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "archmem", *args, "--repo", str(root)], env=env,
                          capture_output=True, text=True, check=False)


def test_django_apps_and_management_commands(tmp_path: Path):
    root = repos.make_repo(tmp_path / "shop", repos.django_files())
    paths, result = suggested(root)
    assert paths["orders"] == ["orders/**"]
    assert paths["catalog"] == ["catalog/**"]
    assert paths["accounts"] == ["accounts/**"]
    assert paths["emails"] == ["notifications/management/commands/process_emails_from_sqs.py"]
    assert paths["digest"] == ["notifications/management/commands/send_weekly_digest.py"]
    # the web container's own paths replace its components', so it gets both
    # and gives the database's migrations back to it
    assert paths["web"] == ["shop/**", "orders/**", "catalog/**", "accounts/**", "!accounts/migrations/**",
                            "!catalog/migrations/**", "!orders/migrations/**"]
    assert paths["db"] == ["accounts/migrations/**", "catalog/migrations/**", "orders/migrations/**"]
    assert {e["element"] for e in result["external"]} == {"customer", "stripe", "queue"}
    assert result["unmatched"] == []
    assert "shop" in result["from_children"] and "shop" not in paths
    emails = next(s for s in result["suggestions"] if s["element"] == "emails")
    assert any("management command" in line for line in emails["evidence"])
    assert 0 < emails["confidence"] <= 1


def test_microservices_in_src_with_kubernetes_manifests(tmp_path: Path):
    root = repos.make_repo(tmp_path / "boutique", repos.microservices_files())
    paths, result = suggested(root)
    assert paths == {
        "boutique.frontend": ["src/frontend/**"],
        "boutique.cart": ["src/cartservice/**"],
        "boutique.checkout": ["src/checkoutservice/**"],
        "boutique.recommendations": ["src/recommendationservice/**"],
        "boutique.email": ["src/emailservice/**"],
    }
    external = {e["element"]: e["reason"] for e in result["external"]}
    assert set(external) == {"shopper", "payments", "boutique.bucket"}
    assert "managed service" in external["boutique.bucket"]
    checkout = next(s for s in result["suggestions"] if s["element"] == "boutique.checkout")
    assert any("kubernetes-manifests/checkoutservice.yaml" in line for line in checkout["evidence"])
    assert result["unowned"] < result["unowned_before"]


def test_go_module_with_generated_stubs(tmp_path: Path):
    root = repos.make_repo(tmp_path / "payments", repos.go_files())
    paths, result = suggested(root)
    assert paths == {"api": ["cmd/payments-api/**"], "worker": ["cmd/ledger-worker/**"]}
    assert {e["element"] for e in result["external"]} == {"merchant", "bank"}


def test_write_records_the_table_and_keeps_the_rest_of_archmem_toml(tmp_path: Path):
    root = repos.make_repo(tmp_path / "boutique", repos.microservices_files())
    (root / "archmem.toml").write_text("# team settings\n[drift]\nmin_lines = 10  # small services\n", encoding="utf-8")
    model_before = (root / "workspace.dsl").read_text(encoding="utf-8")
    done = run(root, "paths", "suggest", "--write")
    assert done.returncode == 0, done.stderr
    text = (root / "archmem.toml").read_text(encoding="utf-8")
    assert text.startswith("# team settings\n[drift]\nmin_lines = 10  # small services\n")
    config = load_config(root, {})
    assert config.drift.min_lines == 10
    assert config.paths["boutique.cart"] == ["src/cartservice/**"]
    assert (root / "workspace.dsl").read_text(encoding="utf-8") == model_before
    model = json.loads(run(root, "model", "--json").stdout)
    cart = next(e for e in model["elements"] if e["id"] == "boutique.cart")
    assert cart["paths"] == ["src/cartservice/**"] and cart["size"]["files"] == 4
    again = json.loads(run(root, "paths", "suggest", "--json").stdout)
    assert again["suggestions"] == [] and "boutique.cart" in again["mapped"]
    # a second write merges; the file still reads back to the same table
    again = run(root, "paths", "suggest", "--element", "Cart Service", "--write")
    assert again.returncode == 0, again.stderr
    assert load_config(root, {}).paths == config.paths


def test_an_element_named_in_config_paths_is_merged_with_the_models_own(tmp_path: Path):
    files = repos.microservices_files()
    files["workspace.dsl"] = files["workspace.dsl"].replace(
        'cart = container "Cart Service" "Keeps the carts" "C#"',
        'cart = container "Cart Service" "Keeps the carts" "C#" {\n'
        '                properties {\n                    "archmem.paths" "src/cartservice/**"\n'
        "                }\n            }",
    )
    files["archmem.toml"] = '[paths]\n"boutique.cart" = ["kubernetes-manifests/cartservice.yaml"]\nnobody = ["x/**"]\n'
    root = repos.make_repo(tmp_path / "boutique", files)
    workspace = Workspace.open(root, env={})
    cart = workspace.model.get("boutique.cart")
    assert cart is not None and cart.paths == ["src/cartservice/**", "kubernetes-manifests/cartservice.yaml"]
    assert any("archmem.toml:3: [paths] names no element 'nobody'" in w for w in workspace.model.warnings)


def test_a_config_glob_that_leaves_the_repository_is_an_error_at_its_line(tmp_path: Path):
    files = repos.go_files()
    files["archmem.toml"] = '[drift]\nmin_lines = 5\n\n[paths]\napi = ["../elsewhere/**"]\n'
    root = repos.make_repo(tmp_path / "payments", files)
    done = run(root, "model")
    assert done.returncode == 3
    assert "archmem.toml:5: [paths] 'api': '../elsewhere/**' leaves the repository" in done.stderr
    assert "Traceback" not in done.stderr


def test_element_option_asks_about_one_element_even_an_external_one(tmp_path: Path):
    root = repos.make_repo(tmp_path / "payments", repos.go_files())
    paths, result = suggested(root, "Ledger Worker", "bank")
    assert paths == {"worker": ["cmd/ledger-worker/**"]}
    assert [e["element"] for e in result["external"]] == ["bank"]


def test_cli_says_what_it_left_out_and_why(tmp_path: Path):
    root = repos.make_repo(tmp_path / "shop", repos.django_files())
    done = run(root, "paths", "suggest")
    assert done.returncode == 0, done.stderr
    assert "notifications/management/commands/process_emails_from_sqs.py" in done.stdout
    assert "Outside the code (3)" in done.stdout and "stripe (tagged 'External')" in done.stdout
    assert "archmem paths suggest --write" in done.stdout
    data = json.loads(run(root, "paths", "suggest", "--json").stdout)
    assert set(data) >= {"suggestions", "unowned"}
    assert all(set(s) == {"element", "name", "paths", "confidence", "evidence"} for s in data["suggestions"])


@pytest.mark.parametrize(
    ("name", "place", "matches"),
    [
        ("Email Processor", "process_emails_from_sqs", True),
        ("Order Service", "orders", True),
        ("WebApp", "web-app", True),
        ("Cart Service", "cartservice", True),
        ("Notification Service", "notifier", True),
        ("Order Service", "services", False),
        ("Payment Service", "payload", False),
    ],
)
def test_names_meet_identifiers(name: str, place: str, matches: bool):
    assert (name_score(words(name), words(place)) > 0.5) is matches


def test_the_most_specific_folder_wins(tmp_path: Path):
    files = {
        "workspace.dsl": 'workspace {\n model {\n  s = softwareSystem "S" {\n'
                         '   orders = container "Order Service"\n   billing = container "Billing"\n  }\n }\n}\n',
        "services/orders/app.py": "x\n", "services/orders/orders.py": "x\n", "services/billing/app.py": "x\n",
        "services/common.py": "x\n", "tests/orders/test_app.py": "x\n",
    }
    root = repos.make_repo(tmp_path / "r", files)
    paths, _ = suggested(root)
    assert paths == {"orders": ["services/orders/**"], "billing": ["services/billing/**"]}


def test_history_breaks_a_tie_between_two_equally_named_folders(tmp_path: Path):
    from .conftest import commit, lines

    files = {
        "workspace.dsl": 'workspace {\n model {\n  s = softwareSystem "S" {\n   c = container "Inventory"\n  }\n }\n}\n',
        "legacy/inventory/app.py": lines(10), "platform/inventory/app.py": lines(10),
    }
    root = repos.make_repo(tmp_path / "r", files)
    for day in range(2, 6):
        (root / "platform/inventory/app.py").write_text(lines(10 + day), encoding="utf-8")
        commit(root, f"work {day}", f"2026-01-0{day}T00:00:00Z")
    paths, result = suggested(root)
    assert paths == {"c": ["platform/inventory/**"]}
    assert any("recent commits" in line for line in result["suggestions"][0]["evidence"])


def test_the_table_text_quotes_every_key_and_glob():
    table = {'shop.orders': ["services/orders/**"], 'we"ird\\id': ["a b/*.py", "x\ty"], "ünï": ["ç/**"]}
    text = render_table(table)
    assert tomllib.loads(text)["paths"] == table
    assert quote('a"b\\c\n') == '"a\\"b\\\\c\\n"'


def test_replacing_the_table_keeps_what_follows_it():
    text = '[paths]\nold = ["a"]\n# about recall\n[recall]\nmin_relevance = 0.3\n'
    updated = replace_table(text, render_table({"new": ["b/**"]}))
    assert tomllib.loads(updated) == {"paths": {"new": ["b/**"]}, "recall": {"min_relevance": 0.3}}
    assert "# about recall\n[recall]" in updated


def test_paths_written_as_dotted_keys_are_refused_not_mangled(tmp_path: Path):
    from archmem.errors import ConfigError
    from archmem.onboarding.table import write_paths

    config = tmp_path / "archmem.toml"
    config.write_text('paths.api = ["cmd/**"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="one \\[paths\\] table"):
        write_paths(config, {"worker": ["w/**"]})
    assert config.read_text(encoding="utf-8") == 'paths.api = ["cmd/**"]\n'


def test_similarity_is_identifier_aware():
    assert words("processEmails_fromSQS") == ("process", "emails", "sqs")
    assert similarity("orders", "order") == 1.0 and similarity("processor", "process") == 1.0
    assert similarity("configuration", "config") == 0.8
    assert similarity("pay", "payload") == 0.0


def test_an_umbrella_container_leaves_its_siblings_their_own_code(tmp_path: Path):
    files = {
        "workspace.dsl": 'workspace "Chat" {\n model {\n  chat = softwareSystem "Chat" {\n'
                         '   all = container "Backend Canisters" "Every canister API" "Rust"\n'
                         '   users = container "User Index" "" "Rust"\n'
                         '   groups = container "Group Index" "" "Rust"\n  }\n }\n}\n',
        "backend/canisters/user_index/src/lib.rs": "x\n", "backend/canisters/group_index/src/lib.rs": "x\n",
        "frontend/services/userIndex/client.rs": "x\n",
    }
    root = repos.make_repo(tmp_path / "r", files)
    paths, result = suggested(root)
    assert paths == {"users": ["backend/canisters/user_index/**"], "groups": ["backend/canisters/group_index/**"]}
    umbrella = next(u for u in result["unmatched"] if u["element"] == "all")
    assert "holds the code of 2 sibling elements" in umbrella["reason"]


def test_a_parent_gets_the_folder_holding_its_parts(tmp_path: Path):
    files = {
        "workspace.dsl": 'workspace {\n model {\n  s = softwareSystem "S" {\n'
                         '   web = container "Web app" "" "TypeScript" {\n'
                         '    worker = component "Service worker"\n    landing = component "Landing pages"\n   }\n'
                         '   api = container "Orders API" "" "Go"\n  }\n }\n}\n',
        "frontend/worker/service_worker.ts": "x\n", "frontend/app/landingpages/index.ts": "x\n",
        "frontend/app/src/web-components/button.ts": "x\n", "backend/orders-api/main.go": "x\n",
    }
    root = repos.make_repo(tmp_path / "r", files)
    paths, result = suggested(root)
    assert paths["web"] == ["frontend/**"]
    assert paths["worker"] == ["frontend/worker/**"]
    assert paths["landing"] == ["frontend/app/landingpages/**"]
    web = next(s for s in result["suggestions"] if s["element"] == "web")
    assert web["evidence"][0].startswith("the folder that holds its parts' code")
