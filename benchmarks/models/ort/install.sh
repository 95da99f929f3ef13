#!/usr/bin/env bash
# Installs ONNX Runtime (npm onnxruntime-node, pinned in package.json) beside
# ort_run.js. --ignore-scripts: the CPU library ships inside the package; the
# install script would only fetch GPU add-ons.
set -euo pipefail
cd "$(dirname "$0")"
if [ -f node_modules/onnxruntime-node/package.json ]; then exit 0; fi
if ! command -v npm > /dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm > /dev/null
fi
npm install --ignore-scripts --no-audit --no-fund --silent
