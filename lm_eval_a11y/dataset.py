"""The Hugging Face dataset of the benchmark: one row per case, built from ``test_cases/``.

The rows are data only (prompt, metadata, and the checks' source *as text* for readers). Scoring
never runs code from a dataset: the lm-eval task looks each row's case up in the installed package
by id and refuses a row whose version differs from the installed case (see
:func:`lm_eval_a11y.harness.resolve_case`).

By default the task builds the rows in memory from the installed cases, so a run needs no network
and no download; ``--metadata '{"a11y_dataset": "DIR or ORG/NAME"}'`` points it at a built copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from lm_eval_a11y import __version__
from lm_eval_a11y.cases import Case, load_cases

__all__ = [
    "COLUMNS",
    "SPLIT",
    "build_dataset",
    "case_rows",
    "dataset_card",
    "load_task_dataset",
    "push_dataset",
    "variant_docs",
    "write_dataset",
]

SPLIT = "test"
COLUMNS: tuple[str, ...] = (
    "id",
    "title",
    "prompt",
    "tags",
    "category",
    "wcag",
    "version",
    "apg_pattern",
    "checks_source",
)
PARQUET_NAME = f"data/{SPLIT}-00000-of-00001.parquet"


def case_rows(cases: Iterable[Case]) -> list[dict[str, Any]]:
    """One plain row per case, in the column order of :data:`COLUMNS`."""
    return [
        {
            "id": case.id,
            "title": case.title,
            "prompt": case.prompt,
            "tags": list(case.tags),
            "category": case.category,
            "wcag": list(case.wcag),
            "version": case.version,
            "apg_pattern": case.apg_pattern or "",
            "checks_source": case.checks_source(),
        }
        for case in cases
    ]


def _features() -> Any:
    import datasets

    text = datasets.Value("string")
    return datasets.Features(
        {
            "id": text,
            "title": text,
            "prompt": text,
            "tags": datasets.Sequence(text),
            "category": text,
            "wcag": datasets.Sequence(text),
            "version": text,
            "apg_pattern": text,
            "checks_source": text,
        }
    )


def build_dataset(cases: Sequence[Case] | None = None) -> Any:
    """A ``DatasetDict`` with one ``test`` split, built in memory (no network, no cache files)."""
    import datasets

    rows = case_rows(load_cases() if cases is None else cases)
    columns = {name: [row[name] for row in rows] for name in COLUMNS}
    return datasets.DatasetDict({SPLIT: datasets.Dataset.from_dict(columns, features=_features())})


def dataset_card(cases: Sequence[Case], repo: str | None = None) -> str:
    """The dataset card (README.md with YAML metadata) written next to the parquet file."""
    categories = sorted({c.category for c in cases})
    counts = ", ".join(f"{cat}: {sum(c.category == cat for c in cases)}" for cat in categories)
    name = repo or "lm-eval-a11y"
    return f"""---
license: mit
pretty_name: lm-eval-a11y test cases
task_categories:
- text-generation
language:
- en
tags:
- accessibility
- wcag
- html
- code-generation
size_categories:
- n<1K
configs:
- config_name: default
  data_files:
  - split: {SPLIT}
    path: {PARQUET_NAME}
---

# {name}

Prompts of the lm-eval-a11y benchmark: each row asks a language model for a web page or component.
The answer is rendered in headless Chromium, checked with axe-core (WCAG 2.2 A/AA plus best
practices) and with behaviour checks written for the case (keyboard, focus, names, roles, states).

Built by lm-eval-a11y {__version__} from {len(cases)} cases ({counts}).

## Columns

| column | meaning |
|---|---|
| `id` | case id (kebab-case); the scorer looks the checks up by this id |
| `title` | one-line title |
| `prompt` | the text given to the model |
| `tags` | tags, including exactly one category |
| `category` | `widget`, `form`, `page` or `content` |
| `wcag` | WCAG success criteria the case exercises |
| `version` | case version; scoring refuses a row whose version differs from the installed case |
| `apg_pattern` | WAI-ARIA Authoring Practices pattern, empty when none |
| `checks_source` | the case's `checks.py`, as text, for reference only |

## Scoring

Scoring needs the `lm-eval-a11y` package: `checks_source` is never executed. Run

    pip install lm-eval-a11y
    a11y-eval run --model hf --model_args pretrained=MODEL --tasks a11y_html \\
        --metadata '{{"a11y_dataset": "{name}"}}' --log_samples --output_path runs/

A sample passes when axe reports no WCAG failure and every requirement check passes.
"""


def write_dataset(out_dir: Path, cases: Sequence[Case] | None = None) -> Path:
    """Write ``data/test-*.parquet`` and the card ``README.md`` under ``out_dir``; return the parquet path."""
    cases = load_cases() if cases is None else cases
    out_dir.mkdir(parents=True, exist_ok=True)
    parquet = out_dir / PARQUET_NAME
    parquet.parent.mkdir(parents=True, exist_ok=True)
    build_dataset(cases)[SPLIT].to_parquet(str(parquet))
    (out_dir / "README.md").write_text(dataset_card(cases), encoding="utf-8")
    return parquet


def push_dataset(repo: str, *, private: bool = False, token: str | None = None) -> str:
    """Publish the dataset and its card to the Hub; returns the dataset's URL."""
    from huggingface_hub import DatasetCard

    cases = load_cases()
    build_dataset(cases).push_to_hub(repo, private=private, token=token)
    DatasetCard(dataset_card(cases, repo)).push_to_hub(repo, repo_type="dataset", token=token)
    return f"https://huggingface.co/datasets/{repo}"


def _load_source(source: str) -> Any:
    import datasets

    path = Path(source).expanduser()
    if path.is_dir():
        files = sorted(str(p) for p in path.glob("**/*.parquet"))
        if not files:
            raise FileNotFoundError(f"a11y_dataset={source!r}: no parquet files under that folder")
        return datasets.load_dataset("parquet", data_files={SPLIT: files})
    if path.suffix == ".parquet" and path.is_file():
        return datasets.load_dataset("parquet", data_files={SPLIT: [str(path)]})
    # A Hub repository named by the user: the only case where the task touches the network.
    return datasets.load_dataset(source)


def load_task_dataset(**metadata: Any) -> Any:
    """``custom_dataset`` of the lm-eval task. lm-eval passes the task metadata merged with
    ``--metadata`` and the model arguments; only ``a11y_dataset`` (a folder, a parquet file or a
    Hub id; default: the installed cases) and ``a11y_cases`` (comma-separated case ids to keep)
    are read here."""
    import datasets

    source = metadata.get("a11y_dataset")
    data = build_dataset() if not source else _load_source(str(source))
    split = data[SPLIT]
    wanted = metadata.get("a11y_cases")
    if wanted:
        ids = [w.strip() for w in (wanted.split(",") if isinstance(wanted, str) else wanted) if w.strip()]
        known = set(split["id"])
        unknown = [i for i in ids if i not in known]
        if unknown:
            # The generic page checks have no prompt: there is nothing to ask a model for.
            generic = (
                "; 'generic' is no generation case: score pages with it (a11y-eval score FILE --case generic)"
                if "generic" in unknown
                else ""
            )
            raise ValueError(
                f"a11y_cases names unknown case(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}{generic}"
            )
        keep = set(ids)
        split = split.filter(lambda row: row["id"] in keep)
    return datasets.DatasetDict({SPLIT: split})


def task_docs(split: Any, category: str | None = None) -> Any:
    """``process_docs`` of the tasks: drop the reference-only ``checks_source`` column (it would be
    copied into every logged sample) and keep one category when asked."""
    if "checks_source" in split.column_names:
        split = split.remove_columns(["checks_source"])
    if category is not None:
        split = split.filter(lambda row: row["category"] == category)
        if len(split) == 0:
            raise ValueError(f"no case of category {category!r} in the dataset")
    return split


def variant_docs(split: Any, variant: str) -> Any:
    """``process_docs`` of a prompt-variant task (``a11y_html_react``, ...): every case, its prompt
    asked in ``variant`` (a key such as ``react+dark``, lm_eval_a11y/variants.py) and the columns
    ``variant``, ``framework``, ``style`` and ``sample_id`` added, so each logged sample names its
    variant."""
    from lm_eval_a11y.variants import parse_variant, variant_row

    chosen = parse_variant(variant)
    if chosen.is_default:
        raise ValueError("a variant task needs a framework or style other than the defaults; use a11y_html")
    return task_docs(split).map(lambda row: variant_row(row, chosen))


def smoke_docs(split: Any) -> Any:
    """The smoke subset: the first case (by id) of each category, at most four docs, so a small
    model on a laptop CPU finishes in minutes while every category is exercised."""
    split = task_docs(split)
    firsts: dict[str, str] = {}
    for case_id, category in sorted(zip(split["id"], split["category"], strict=True)):
        firsts.setdefault(category, case_id)
    keep = set(firsts.values())
    return split.filter(lambda row: row["id"] in keep)
