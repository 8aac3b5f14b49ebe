#!/usr/bin/env bash
# Builds llmsim (installing missing packages) and simulates scenarios/default.json into results/default/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/build.sh"
cd "$root"
build/llmsim run scenarios/default.json "$@"
