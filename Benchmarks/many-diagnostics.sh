#!/bin/bash
# Times `formsctl validate` on one purchase order with N items each `quantity: -1` (N findings),
# to check that placing diagnostics stays linear in their number.
# Usage: Benchmarks/many-diagnostics.sh [N...]   (FORMSCTL defaults to .build/debug/formsctl)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
F=${FORMSCTL:-$ROOT/.build/debug/formsctl}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp -r "$ROOT/examples/acquisitions" "$T/s"
sed -i "s#../../schemas#$ROOT/schemas#" "$T/s/formsctl.yaml"
cd "$T/s" || exit 1
Ns=("$@")
[ ${#Ns[@]} -eq 0 ] && Ns=(0 1000 5000 20000)
for N in "${Ns[@]}"; do
  N=$N python3 - <<'PY'
import json, os
n = int(os.environ["N"]); p = "data/purchase-orders/PO-000201.json"
d = json.load(open(p)); it = d["items"][0]
d["items"] = [dict(it, product_item_id=i + 1, quantity=-1) for i in range(max(n, 1))]
if n == 0: d["items"][0]["quantity"] = 1
open(p, "w").write(json.dumps(d, indent=2, sort_keys=True) + "\n")
PY
  s=$(date +%s.%N)
  "$F" validate data/purchase-orders/PO-000201.json >/dev/null 2>&1
  e=$(date +%s.%N)
  printf 'N=%-6s validate %.2f s\n' "$N" "$(echo "$e - $s" | bc)"
done
