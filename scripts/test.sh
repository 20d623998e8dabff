#!/usr/bin/env bash
# The one test command: set up (quick when already done), then lint (ruff, eslint), type-check and run pytest
# against real Chromium and real axe-core. Extra arguments go to pytest.
#   A11Y_SLOW=1 bash scripts/test.sh   also runs the long real-model tests (a short one always runs)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/setup.sh
venv="${A11Y_VENV:-$repo/.venv}"
echo "[test] ruff"
"$venv/bin/ruff" check .
echo "[test] mypy"
"$venv/bin/mypy"
# Every case's module is called checks, so mypy takes them one file per run (warm: ~0.4 s each).
echo "[test] mypy: test_cases/*/checks.py"
failed_cases=0
for checks in test_cases/*/checks.py; do
  "$venv/bin/mypy" --no-error-summary "$checks" || failed_cases=1
done
[[ "$failed_cases" -eq 0 ]]
# Our own JavaScript (the probe's modules) with eslint, as pinned in evaluator/package-lock.json.
echo "[test] eslint: evaluator/"
npm run --prefix evaluator --silent lint
echo "[test] pytest"
"$venv/bin/pytest" "$@"
