#!/bin/bash
# Times `formsctl stats KIND --workflow` when its times come from git history (no audit log):
# N acquisitions written by hand and committed, then ROUNDS commits each moving a third of them
# one workflow step; then a calendar grouping with exact averages over the same store.
# Usage: Benchmarks/stats-workflow-git.sh [N...]   (FORMSCTL defaults to .build/debug/formsctl; ROUNDS=3)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
F=${FORMSCTL:-$ROOT/.build/debug/formsctl}
ROUNDS=${ROUNDS:-3}
Ns=("$@")
[ ${#Ns[@]} -eq 0 ] && Ns=(100 1000 5000)
for N in "${Ns[@]}"; do
  T=$(mktemp -d)
  "$F" init "$T/s" >/dev/null || exit 1
  cd "$T/s" || exit 1
  git init -q . && git config user.name bench && git config user.email bench@example.com
  N=$N ROUNDS=$ROUNDS python3 - <<'PY'
import json, os, random, re, subprocess
n, rounds = int(os.environ["N"]), int(os.environ["ROUNDS"])
steps = {"planning": "solicitation", "solicitation": "evaluation", "evaluation": "awarded", "awarded": "closed"}
rng = random.Random(7)
docs = {}
def write(d):
    # estimated_value is a decimal: its text is written as a JSON number.
    text = re.sub(r'"estimated_value": "([0-9.]+)"', r'"estimated_value": \1', json.dumps(d, indent=2, sort_keys=True))
    open(f"data/acquisitions/{d['id']}.json", "w").write(text + "\n")
os.makedirs("data/acquisitions", exist_ok=True)
for i in range(n):
    d = {"_schema": "acquisition@1.1.0", "id": f"ACQ-2026-{i % 1000:03d}" if n <= 1000 else f"ACQ-{2026 + i // 1000}-{i % 1000:03d}",
         "title": f"Item {i}", "agency": rng.choice(["GSA", "VA", "DOD"]), "status": "planning",
         "estimated_value": f"{rng.randint(1000, 999999)}.{rng.randint(0, 99):02d}",
         "created_date": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00Z",
         "last_modified_date": "2026-11-01T10:00:00Z"}
    docs[d["id"]] = d
    write(d)
def commit(day):
    env = dict(os.environ, GIT_AUTHOR_DATE=f"2026-11-{day:02d}T00:00:00Z", GIT_COMMITTER_DATE=f"2026-11-{day:02d}T00:00:00Z")
    subprocess.run(["git", "add", "-A"], check=True)
    subprocess.run(["git", "commit", "-q", "-m", f"day {day}"], check=True, env=env)
commit(1)
for r in range(rounds):
    for d in rng.sample(list(docs.values()), len(docs) // 3):
        if d["status"] in steps:
            d["status"] = steps[d["status"]]
            write(d)
    commit(2 + r * 3)
PY
  for run in workflow bymonth; do
    if [ $run = workflow ]; then args=(stats acquisition --workflow); else args=(stats acquisition --by 'month(created_date)' --avg estimated_value --max estimated_value); fi
    "$F" "${args[@]}" >/dev/null 2>&1   # warm the page cache
    s=$(date +%s.%N)
    "$F" "${args[@]}" >/dev/null 2>"$T/err" || { cat "$T/err"; }
    e=$(date +%s.%N)
    printf 'N=%-6s %-8s %.3f s (%s commits)\n' "$N" "$run" "$(echo "$e - $s" | bc)" "$(git rev-list --count HEAD)"
  done
  # The two git calls alone (git's share of the workflow run).
  s=$(date +%s.%N)
  git -C data/acquisitions log --relative --no-renames --raw --no-abbrev -z --format=%x01%at -- . >"$T/log"
  git cat-file --batch-all-objects --batch-check='%(objectname)' | git cat-file --batch >/dev/null
  e=$(date +%s.%N)
  printf 'N=%-6s git log + cat-file alone %.3f s\n' "$N" "$(echo "$e - $s" | bc)"
  cd / && rm -rf "$T"
done
