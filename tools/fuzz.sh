#!/usr/bin/env bash
# Builds the libFuzzer target over the scenario reader, loader and validator (clang, -DLLMSIM_FUZZ=ON) in
# build-fuzz/ and runs it for SECONDS (default 60). The corpus build-fuzz/fuzz-corpus/ grows across runs; it
# starts from every shipped scenario and configs preset, copied afresh into build-fuzz/fuzz-seeds/. A finding
# (crash, sanitizer report, exception other than ScenarioError, timeout, out-of-memory) is saved in
# build-fuzz/findings/ and the script exits 1. Without clang's libFuzzer it says the run is skipped and exits 0.
# LLMSIM_FUZZ_SEED sets libFuzzer's -seed (default 0: a random seed) and LLMSIM_FUZZ_RUNS its -runs (default: no
# limit but the time). The test command uses seed 1 and 30,000 runs: from the same seeds and an empty corpus that
# is the same inputs on every machine (about a minute here), SECONDS only a safety limit.
# Usage: tools/fuzz.sh [SECONDS]     (see docs/hardening.md)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
build="$root/build-fuzz"

if ! command -v clang++ >/dev/null ||
   ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
       clang++ -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "fuzz: skipped (no clang++ with libFuzzer; Debian: apt-get install clang)"
  exit 0
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
mkdir -p "$build"
echo "fuzz: building $build/tests/fuzz/scenario_fuzz (log: $build/build.log), then fuzzing for ${seconds}s"
if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
         -DLLMSIM_FUZZ=ON -DBUILD_TESTING=OFF "${launcher[@]}" &&
       cmake --build "$build" --target scenario_fuzz -j "$(nproc)"; } >"$build/build.log" 2>&1; then
  tail -n 20 "$build/build.log"
  echo "fuzz: FAILED to build the fuzz target (see $build/build.log)"
  exit 1
fi

seeds="$build/fuzz-seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$build/fuzz-corpus" "$build/findings"
(cd "$root" && find scenarios configs -name '*.json' | while read -r f; do cp "$f" "$seeds/${f//\//_}"; done)
# Dictionary: every key, enum value and preset name of the scenario schema, as quoted JSON strings.
grep -o '"[A-Za-z0-9_.+-]\+"' "$root/docs/scenario.schema.json" | sort -u >"$build/scenario.dict"

log="$build/fuzz.log"
status=0
started=$(date +%s)
(cd "$build" && tests/fuzz/scenario_fuzz -max_total_time="$seconds" -seed="${LLMSIM_FUZZ_SEED:-0}" -runs="${LLMSIM_FUZZ_RUNS:--1}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
   -dict=scenario.dict -artifact_prefix="$build/findings/" fuzz-corpus fuzz-seeds) >"$log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
corpus=$(find "$build/fuzz-corpus" -type f | wc -l)
if [ "$status" -ne 0 ]; then
  grep -m 1 -E 'ERROR: |finding: |terminate called|SUMMARY: ' "$log" || tail -n 5 "$log"
  artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
  echo "fuzz: FINDING after ${runs:-?} runs: input ${artifact:-?}, log $log (reproduce: $build/tests/fuzz/scenario_fuzz ${artifact:-FILE})"
  exit 1
fi
echo "fuzz: ok, ${runs:-?} runs in $(( $(date +%s) - started ))s (${rate:-?} exec/s), no findings; corpus $corpus inputs"
