#!/usr/bin/env bash
# Installs archmem for the archmem actions: their "Install archmem" step runs this file.
#
#   ACTION_PATH      the action's folder (github.action_path): archmem's own checkout is
#                    the repository two folders above it, at the commit the workflow pins
#   ARCHMEM_VERSION  empty (or "source"): archmem from that checkout, so a workflow that
#                    pins the action by SHA runs exactly that archmem, released or not;
#                    a version (0.2.0): that release from the package index
#   ARCHMEM_SPEC     anything else pip installs (a wheel, a folder, a requirement); wins
set -euo pipefail

version="${ARCHMEM_VERSION:-}"
spec="${ARCHMEM_SPEC:-}"
if [ -z "$spec" ]; then
  if [ -z "$version" ] || [ "$version" = source ]; then
    spec="$(cd "$ACTION_PATH/../.." && pwd)"
    if [ ! -f "$spec/pyproject.toml" ]; then
      echo "::error title=archmem::no archmem checkout at $spec (the repository above $ACTION_PATH); give archmem-version"
      exit 1
    fi
  elif [[ "$version" =~ ^[0-9][0-9A-Za-z.+!-]*$ ]]; then
    spec="archmem==$version"
  else
    echo "::error title=archmem::archmem-version must be a released version (e.g. 0.2.0), or empty for this action's own archmem, not '$version'"
    exit 1
  fi
fi
python -m pip install --quiet --disable-pip-version-check "$spec"
echo "archmem: installed $(archmem --version) from $spec"
