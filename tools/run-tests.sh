#!/usr/bin/env bash
# Builds llmsim and its tests (installing missing packages), runs the whole suite with ctest, then about a minute
# (30,000 inputs, seed 1) of the scenario fuzzer (tools/fuzz.sh, its own clang build in build-fuzz/; docs/hardening.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)"
LLMSIM_FUZZ_SEED=1 LLMSIM_FUZZ_RUNS=30000 "$root/tools/fuzz.sh" 180
