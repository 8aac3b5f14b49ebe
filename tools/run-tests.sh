#!/usr/bin/env bash
# Builds llmsim and its tests (installing missing packages) and runs the whole suite with ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)"
