"""The datatrove step on its own, as a user puts it in a pipeline of theirs: documents in, scores in
their metadata, the kept ones out, the dropped ones into the exclusion writer; none lost."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

from datatrove.data import Document
from datatrove.pipeline.writers import JsonlWriter

from corpus.support import BAD_ROWS, clean, failing
from lm_eval_a11y.corpus import A11yCorpusFilter, PageScore


def test_the_filter_scores_keeps_and_sends_the_dropped_to_the_exclusion_writer(tmp_path: Path) -> None:
    texts = [clean(1), failing(2), str(BAD_ROWS[3][0]), clean(4)]
    docs = [Document(text=text, id=f"d{i}") for i, text in enumerate(texts)]
    step = A11yCorpusFilter(
        keep="passing",
        generic=False,
        batch_size=3,
        concurrency=2,
        exclusion_writer=JsonlWriter(str(tmp_path / "dropped"), compression=None),
        progress_dir=tmp_path / "progress",
    )
    kept = list(step.run(iter(docs), rank=3, world_size=4))
    assert [d.id for d in kept] == ["d0", "d3"]
    for doc in kept:
        assert set(PageScore.record_keys()) <= set(doc.metadata)
        assert doc.metadata["a11y_pass"] is True and doc.metadata["a11y_score"] == 1.0
    dropped = [json.loads(line) for line in (tmp_path / "dropped" / "00003.jsonl").read_text().splitlines()]
    assert [d["id"] for d in dropped] == ["d1", "d2"]
    assert [d["metadata"]["filter_reason"] for d in dropped] == ["failing", "not_html"]
    assert dropped[0]["metadata"]["a11y_axe_rules"] == ["image-alt", "label"]
    assert (tmp_path / "progress" / "00003").read_text() == "4"
    assert step._evaluator is None, "the task's pool is closed when the task ends"


def test_the_html_can_come_from_a_metadata_column() -> None:
    # A document whose HTML is in its metadata, and one whose metadata lacks it.
    docs = [
        Document(text="a caption", id="a", metadata={"page": clean(1)}),
        Document(text="a caption", id="b", metadata={}),
    ]
    step = A11yCorpusFilter(keep="all", column="page", generic=False, prefix="q_", concurrency=1)
    kept = list(step.run(iter(docs)))
    assert [(d.id, d.metadata["q_status"], d.metadata["q_a11y_pass"]) for d in kept] == [
        ("a", "ok", True),
        ("b", "missing", False),
    ]


def test_the_step_is_picklable_without_its_pool(tmp_path: Path) -> None:
    step = A11yCorpusFilter(keep="score>=0.5", column="html", generic=False, progress_dir=tmp_path)
    copy = pickle.loads(pickle.dumps(step))
    assert str(copy.keep) == "score>=0.5" and copy.column == "html" and copy._evaluator is None


def test_the_step_keeps_its_old_name() -> None:
    """Pipelines written before the rename import ``A11yFilter``: the same class."""
    from lm_eval_a11y.corpus import A11yFilter

    assert A11yFilter is A11yCorpusFilter
