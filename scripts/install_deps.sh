#!/usr/bin/env bash
# Installs Kiln's build and test dependencies from Debian 12 packages.
# Idempotent: packages already present are skipped, apt runs only when needed.
set -euo pipefail

PACKAGES=(
  cmake make g++ gcc
  flatbuffers-compiler libflatbuffers-dev
  libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libprotobuf-dev protobuf-compiler libonnx-dev
  python3 python3-numpy python3-onnx python3-torch python3-torchvision
  libonnx-testdata libopenblas-dev
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user
)

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
