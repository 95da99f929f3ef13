# Sourced by the e2e scripts that count their checks, after their usage line
# `SCRIPT KILN SOURCE_DIR WORK_DIR ...`: sets KILN, SRC, WORK (made empty) and
# PY, and gives ok/fail to count checks and finish to print the counts and
# fail the script when any check failed.
KILN=$1
SRC=$2
WORK=$3
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
passed=0
failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
