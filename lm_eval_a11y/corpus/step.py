"""The datatrove pipeline step: score each document's HTML, record it, keep or drop the document.

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import ParquetReader
    from datatrove.pipeline.writers import ParquetWriter
    from lm_eval_a11y.corpus import A11yCorpusFilter

    LocalPipelineExecutor([
        ParquetReader("pages/", text_key="html"),
        A11yCorpusFilter(keep="score>=0.5", exclusion_writer=ParquetWriter("dropped/")),
        ParquetWriter("kept/"),
    ], tasks=8, logging_dir="logs/").run()

The step is a datatrove filter like any other: the executor owns sharding, parallel tasks and
resumption (a task marked complete in the logging folder is skipped when the pipeline runs
again), and dropped documents go to the ``exclusion_writer``, so none disappears unseen. The
step owns one browser pool per task, started when the task starts and closed when it ends;
documents reach the pool ``batch_size`` at a time, which it renders concurrently.

Each document gets the :class:`~lm_eval_a11y.corpus.PageScore` fields in its metadata, under
``prefix`` (``a11y_status``, ``a11y_score``, ... and ``a11y_pass``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.filters.base_filter import BaseFilter
from datatrove.pipeline.writers.disk_base import DiskWriter

from lm_eval_a11y.cases import Case
from lm_eval_a11y.corpus.decode import PROBLEM_KEY, row_problem
from lm_eval_a11y.corpus.keep import KeepRule
from lm_eval_a11y.corpus.pages import PageScore, resolve_checks, score_pages
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

__all__ = ["A11yCorpusFilter", "A11yFilter"]


class A11yCorpusFilter(BaseFilter):
    """Score each document's HTML in Chromium, write the scores into its metadata, and keep the
    documents ``keep`` accepts (``"passing"``, ``"score>=X"``, ``"all"`` or a :class:`KeepRule`).

    ``column``: the metadata key that holds the HTML (``None``: the document's text). ``case``: a
    case id whose checks run on every page; else ``generic`` adds the generic page checks (else
    axe-core only). ``extract``: the HTML is a model's answer to cut the page out of.
    ``timeout_s`` and ``concurrency``: the pool's budget per page and pages at once, per task.
    ``progress_dir``: a folder where the task keeps a count of the documents it has scored
    (``<rank>``, one number), for a progress display outside the task.

    A rule that looks at the verdict alone (``passing``, ``score>=1``) stops each page at its
    first decided failure and skips the rest of its evaluation (``stop_at_first_failure``): the
    documents kept are those of a full evaluation, and a dropped document's scores are partial
    (``a11y_partial`` true). ``full_scores=True`` evaluates every page fully.
    """

    name = "♿ Accessibility"

    def __init__(
        self,
        keep: str | KeepRule = "passing",
        *,
        column: str | None = None,
        case: str | None = None,
        generic: bool = True,
        extract: bool = False,
        prefix: str = "a11y_",
        batch_size: int = 64,
        timeout_s: float = 20.0,
        concurrency: int = DEFAULT_CONCURRENCY,
        exclusion_writer: DiskWriter | None = None,
        progress_dir: str | Path | None = None,
        full_scores: bool = False,
    ) -> None:
        super().__init__(exclusion_writer=exclusion_writer, batch_size=batch_size)
        if isinstance(case, Case):
            raise TypeError("give the case by its id: tasks resolve it again in their own processes")
        self.keep = keep if isinstance(keep, KeepRule) else KeepRule.parse(keep)
        self.column = column
        self.case_id = case
        self.generic = generic
        self.extract = extract
        self.prefix = prefix
        self.full_scores = full_scores
        self.settings = EvaluatorSettings(
            timeout_s=timeout_s,
            concurrency=concurrency,
            stop_at_first_failure=self.keep.verdict_only and not full_scores,
        )
        self.progress_dir = None if progress_dir is None else str(progress_dir)
        # Fail here, where the pipeline is built, rather than in every task: an unknown case, or
        # generic checks this installation does not have.
        resolve_checks(case, generic)
        self._case: Case | None = None
        self._evaluator: Evaluator | None = None
        self._rank = 0
        self._scored = 0

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        self._rank, self._scored = rank, 0
        self._report_progress()
        self._checks()
        self._evaluator = Evaluator(self.settings)
        try:
            yield from super().run(data, rank, world_size)
        finally:
            evaluator, self._evaluator = self._evaluator, None
            evaluator.close()

    def filter(self, doc: Document) -> bool | tuple[bool, str]:
        return self.filter_batch([doc])[0]

    def filter_batch(self, batch: list[Document]) -> list[bool | tuple[bool, str]]:
        # A row the reader could not read whole (its bytes are not text) is not rendered: its
        # status says why. The rest reach the pool together.
        problems = [row_problem(doc.metadata.pop(PROBLEM_KEY, None)) for doc in batch]
        readable = [doc for doc, problem in zip(batch, problems, strict=True) if problem is None]
        values = [doc.text if self.column is None else doc.metadata.get(self.column) for doc in readable]
        rendered: list[PageScore] = []
        if values:
            evaluator = self._evaluator or Evaluator(self.settings)
            try:
                rendered = score_pages(values, self._checks(), generic=False, extract=self.extract, evaluator=evaluator)
            finally:
                if evaluator is not self._evaluator:
                    evaluator.close()
        scored = iter(rendered)
        scores = [next(scored) if problem is None else problem.score() for problem in problems]
        results: list[bool | tuple[bool, str]] = []
        for doc, score in zip(batch, scores, strict=True):
            doc.metadata.update(score.record(self.prefix))
            self.stat_update(f"status_{score.status}")
            if self.keep.keeps(score):
                results.append(True)
            else:
                results.append((False, self.keep.drop_reason(score)))
        self._scored += len(batch)
        self._report_progress()
        return results

    def _checks(self) -> Case | None:
        """The case whose checks run (None: axe-core only), resolved once in this process."""
        if self._case is None and (self.case_id is not None or self.generic):
            self._case = resolve_checks(self.case_id, self.generic)
        return self._case

    def _report_progress(self) -> None:
        if self.progress_dir is None:
            return
        folder = Path(self.progress_dir)
        folder.mkdir(parents=True, exist_ok=True)
        # Written whole and renamed into place, so a reader never sees half a number.
        with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".progress-", delete=False) as out:
            out.write(str(self._scored))
        Path(out.name).replace(folder / f"{self._rank:05d}")

    def __getstate__(self) -> dict[str, Any]:
        # A live pool belongs to the process that started it; a copy of the step starts its own.
        state = self.__dict__.copy()
        state["_evaluator"] = None
        state["_case"] = None
        return state


A11yFilter = A11yCorpusFilter
"""The name :class:`A11yCorpusFilter` was published under; pipelines that use it keep working."""
