#!/usr/bin/env bash
# Installs the Debian packages llmsim needs, only those missing (idempotent). Uses sudo when not root.
set -euo pipefail
packages=(cmake g++ make pkg-config libsimgrid-dev nlohmann-json3-dev libspdlog-dev libcli11-dev libglpk-dev
          googletest libgtest-dev python3 python3-matplotlib python3-scipy python3-jsonschema
          clang libclang-rt-dev slurm-wlm munge)  # clang, libclang-rt-dev: tools/fuzz.sh (libFuzzer);
          # slurm-wlm, munge: llmsim sweep --backend slurm, tools/slurm-local.sh
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "llmsim setup: installing ${missing[*]}" >&2
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
