#!/usr/bin/env bash
# The synthetic history of docs/history.md: the CI study (configs/citywright/ci.yaml) in a scratch git
# repository, at a first commit (v1.1) and at three commits that each give the last seat one more point of
# seat bonus, as a designer would: check the change (appending to the history), accept it, save the new
# baseline (appending it too). Then draw the history. About a minute on one core.
#   docs/history-example.sh [OUT]        # OUT defaults to results/history-example
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BALANCER=${BALANCER:-$ROOT/.venv/bin/balancer}
OUT=$(realpath -m "${1:-results/history-example}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
cd "$WORK"
git init -q -b main
git config user.name "A designer"
git config user.email "designer@example.org"
sed 's|v1.1: v1.1.yaml|v1.1: variant.yaml|' "$ROOT/configs/citywright/ci.yaml" > study.yaml
echo "extends: $ROOT/configs/citywright/v1.1.yaml" > variant.yaml
git add . && git commit -qm "Citywright v1.1"
H="$OUT/history.duckdb"
rm -f "$H" "$H.lock"
"$BALANCER" baseline save study.yaml -o baseline.json --results results -j 1 -q --history "$H"
for last in 1 2 3; do
  printf 'extends: %s\nseat_bonus: {"3": [2, 2, %d], "4": [2, 2, 1, %d]}\n' \
    "$ROOT/configs/citywright/v1.1.yaml" "$last" "$last" > variant.yaml
  git commit -qam "Last seat's bonus: $last point(s)"
  "$BALANCER" check study.yaml --baseline baseline.json -j 1 -q --history "$H" | grep -E '^(PASS|FAIL)' || true
  "$BALANCER" baseline save study.yaml -o baseline.json --results results -j 1 -q --force --history "$H"
done
"$BALANCER" history "$H" -o "$OUT/history.html" --figures "$OUT/figures"
