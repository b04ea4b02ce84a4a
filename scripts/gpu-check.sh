#!/usr/bin/env bash
# Run the CUDA part of the `mwbmigrate verify` suite in one go and print a compact result table.
#
#   scripts/gpu-check.sh [SGLANG_TREE]
#
# Needs only this repository and a Python whose torch sees a CUDA device (plus pytest, installed
# here if missing and the index is reachable). Sized to finish well under 5 minutes on one GPU.
# Exit status: 0 when every CUDA test ran and passed (xfail allowed), 1 otherwise, 2 when this
# machine cannot run them at all.
set -u
tree=""
if [ $# -gt 0 ]; then tree=$(cd "$1" 2>/dev/null && pwd) || { echo "gpu-check: no folder $1" >&2; exit 2; }; fi
cd "$(dirname "$0")/.." || exit 2
repo=$(pwd)

py=""
for candidate in "${PYTHON:-}" "$repo/.venv/bin/python" python3 python; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || [ -x "$candidate" ] || continue
    if "$candidate" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        py=$candidate
        break
    fi
done
if [ -z "$py" ]; then
    echo "gpu-check: no Python here imports torch with CUDA available (tried \$PYTHON, .venv, python3, python)." >&2
    echo "gpu-check: run it on a machine with an NVIDIA driver and a CUDA build of torch, or set PYTHON=..." >&2
    exit 2
fi
if ! "$py" -c 'import pytest' 2>/dev/null; then
    "$py" -m pip install --quiet pytest >/dev/null 2>&1 || {
        echo "gpu-check: pytest is missing and could not be installed ($py -m pip install pytest)" >&2
        exit 2
    }
fi

results=$(mktemp -t mwbmigrate-gpu-check.XXXXXX.json)
trap 'rm -f "$results"' EXIT
suite="$repo/mwbmigrate/verify/suite"
export PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
export MWBMIGRATE_VERIFY_RESULTS="$results"
unset PYTORCH_NO_CUDA_MEMORY_CACHING MWBMIGRATE_VERIFY_CUDA_MODE
if [ -n "$tree" ]; then export MWBMIGRATE_VERIFY_TREE="$tree"; else unset MWBMIGRATE_VERIFY_TREE; fi

"$py" -c 'import torch; print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")'
start=$(date +%s)
(cd "$suite" && timeout 290 "$py" -m pytest test_cuda.py -m cuda -c /dev/null --rootdir "$suite" \
    -p no:cacheprovider -q -rfEsx --color=no) > "$results.log" 2>&1
status=$?
echo "pytest exit status $status in $(( $(date +%s) - start )) s"

"$py" - "$results" "$results.log" "$status" <<'EOF'
import json, sys
path, log, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    doc = json.load(open(path))
except (OSError, ValueError):
    print(open(log).read()[-4000:])
    print("gpu-check: the suite did not report (see the output above)")
    sys.exit(1)
rows = [(t["nodeid"].split("::", 1)[1], t["outcome"], f'{t["duration"]:.2f}s', t["message"].splitlines()[0][:70] if t["message"] else "")
        for t in doc["tests"]]
head = ("test", "outcome", "time", "note")
widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(4)]
line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
print(line(head)); print(line(tuple("-" * w for w in widths)))
for row in rows:
    print(line(row))
for impl in doc["implementations"]:
    print(f'{impl["name"]}: {impl["description"]}')
outcomes = [t["outcome"] for t in doc["tests"]]
print(", ".join(f"{outcomes.count(o)} {o}" for o in sorted(set(outcomes))))
ok = bool(outcomes) and all(o in ("passed", "xfailed", "xpassed") for o in outcomes)
if not ok and status:
    print(open(log).read()[-3000:])
sys.exit(0 if ok else 1)
EOF
code=$?
rm -f "$results.log"
exit $code
