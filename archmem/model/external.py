"""Which elements are expected to own no code in this repository, and why in words.

People, systems tagged External (or Existing, Third party, SaaS), software systems
without containers that are not the one this repository builds, and managed cloud
services named by their technology ("AWS SQS", "Amazon S3") are outside the code:
drift is not measured for them and no paths are suggested. Everything else that owns
no code is *unmapped*: drift is not measured yet, and ``archmem paths suggest`` helps.
"""

from __future__ import annotations

import re
from functools import lru_cache

from archmem.model.types import ArchitectureModel, Element

_EXTERNAL_TAG = re.compile(
    r"^(?:external(?:\s+\w+)?|existing(?:\s+system)?|third[\s-]?party|3rd[\s-]?party|saas)$", re.I
)
_CLOUD = re.compile(
    r"\b(?:aws|amazon|azure|gcp|google\s+cloud|cloudflare)\b|\b(?:sqs|sns|s3|dynamodb|kinesis|eventbridge|cognito"
    r"|cloudfront|route\s?53|ses|firehose|pub/?sub|bigquery|firestore|cosmos\s?db|service\s?bus|event\s?hubs?"
    r"|blob\s+storage|auth0|okta|stripe|twilio|sendgrid|mailgun|salesforce)\b",
    re.I,
)
_RUNS_OUR_CODE = re.compile(
    r"\b(?:lambda|functions?|fargate|ecs|eks|ec2|app\s?engine|cloud\s?run|app\s?service|kubernetes|gke|aks"
    r"|beanstalk|batch|glue\s+job)\b",
    re.I,
)
_DATA_STORE = re.compile(
    r"\b(?:postgres(?:ql)?|mysql|mariadb|sql\s?server|oracle|sqlite|redis|memcached|mongo(?:db)?|cassandra"
    r"|elastic\s?search|opensearch|kafka|rabbitmq|nats|zookeeper|etcd|influxdb|neo4j|clickhouse|database|"
    r"data\s?store|queue|topic|bucket|cache)\b",
    re.I,
)


def external_elements(model: ArchitectureModel) -> dict[str, str]:
    """Element id → why it owns no code here (a person, tagged External, …), for every
    element outside the code; computed in one walk (callers keep the answer)."""
    main = main_systems(model)
    reasons: dict[str, str] = {}
    for _, element in model.walk():
        parent_reason = reasons.get(element.parent) if element.parent else None
        if parent_reason is not None:
            reasons[element.id] = "inside an external element"
        elif element.kind == "person":
            reasons[element.id] = "a person"
        elif _tagged_external(element):
            tag = next(t for t in element.tags if _EXTERNAL_TAG.match(t.strip()))
            reasons[element.id] = f"tagged {tag!r}"
        elif element.kind == "softwareSystem" and element.id not in main and not model.children(element.id):
            reasons[element.id] = "a software system without containers that this repository does not build"
        elif element.kind != "softwareSystem" and _managed_service(element):
            reasons[element.id] = f"a managed service ({element.technology or element.name})"
    return reasons


def is_data_store(element: Element) -> bool:
    """A database, queue or cache: it may own a schema or migrations, rarely more."""
    text = f"{element.technology} {' '.join(element.tags)}"
    return bool(_DATA_STORE.search(text)) or any(t.lower() in ("database", "queue", "db") for t in element.tags)


def main_systems(model: ArchitectureModel) -> set[str]:
    """The software systems this repository builds: those with containers (or other
    children); without any, the one named like the workspace, else the only
    non-external one."""
    systems = [e for e in model.elements if e.kind == "softwareSystem" and not _tagged_external(e)]
    with_children = {e.id for e in systems if model.children(e.id)}
    if with_children:
        return with_children
    workspace = _words(model.name)
    named = {e.id for e in systems if workspace and _words(e.name) == workspace}
    if named:
        return named
    return {systems[0].id} if len(systems) == 1 else set()


def _tagged_external(element: Element) -> bool:
    return any(_EXTERNAL_TAG.match(tag.strip()) for tag in element.tags)


def _managed_service(element: Element) -> bool:
    text = element.technology or ""
    if not text:
        text = element.name
    return bool(_CLOUD.search(text)) and not _RUNS_OUR_CODE.search(text)


@lru_cache(maxsize=256)
def _words(text: str) -> tuple[str, ...]:
    return tuple(w for w in re.split(r"[^a-z0-9]+", text.lower()) if w)
