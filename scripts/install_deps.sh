#!/usr/bin/env bash
# Installs Kiln's build and test dependencies from Debian 12 packages.
# usage: install_deps.sh [demo]   demo: only what scripts/demo.sh needs
# Idempotent: packages already present are skipped, apt runs only when needed.
set -euo pipefail

# Building the compiler, the VM and the `kiln` tool, and the demo's comparison.
DEMO_PACKAGES=(
  cmake make g++ gcc
  flatbuffers-compiler libflatbuffers-dev
  libabsl-dev
  libprotobuf-dev protobuf-compiler libonnx-dev
  python3 python3-numpy
)
# The test suite, the benchmarks and the Python package.
TEST_PACKAGES=(
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-onnx python3-torch python3-torchvision
  libonnx-testdata libopenblas-dev
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  python3-dev pybind11-dev python3-pybind11 python3-pytest
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user
  ccache
)
PACKAGES=("${DEMO_PACKAGES[@]}")
if [ "${1:-}" != demo ]; then PACKAGES+=("${TEST_PACKAGES[@]}"); fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install_deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
