"""Scoring many pages at once: one :class:`PageScore` per input, in input order, whatever it is.

Corpus rows are not files a person picked: a column holds ``None``, bytes, numbers, prose, JSON
records, model answers, pages of megabytes, and pages written to hang or crash a browser. Each
of them gets exactly one score with a status and a reason, and the rest of the batch goes on;
nothing is dropped, duplicated or reordered. What cannot be rendered is recognised before the
browser sees it (:func:`admit`); what the browser cannot finish is the evaluator's outcome
(``timeout``, ``error``).

The pool is shared: :func:`shared_evaluator` starts one Chromium per process on first use and
closes it at exit, so many calls (and many threads: the :class:`~lm_eval_a11y.engine.evaluator.Evaluator`
facade is thread-safe) reuse it. A forked child never touches its parent's pool; it starts its own.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import math
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, get_args

from lm_eval_a11y.answer_pages import MAX_BLOCKS, MAX_PAGES, deciding_page
from lm_eval_a11y.cases import Case, get_case
from lm_eval_a11y.extract import extract_html
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.page_kind import not_a_page
from lm_eval_a11y.scoring import decided_wcag_failures, graded_score, score_observation, unmet_requirements

if TYPE_CHECKING:
    from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

__all__ = [
    "EVALUATED",
    "STATUSES",
    "GenericChecksMissingError",
    "PageScore",
    "PageStatus",
    "admit",
    "admit_answer",
    "resolve_checks",
    "score_features",
    "score_pages",
    "score_schema",
    "shared_evaluator",
]

PageStatus = Literal[
    "ok",
    "timeout",
    "error",
    "missing",
    "not_text",
    "empty",
    "not_html",
    "too_large",
    "not_utf8",
    "bad_text",
    "not_json",
]
STATUSES: tuple[PageStatus, ...] = get_args(PageStatus)
"""Every status a :class:`PageScore` can have; the first three come from rendering the page, the
last three from reading a corpus row whose bytes are not text (:mod:`lm_eval_a11y.corpus.decode`)."""
EVALUATED: tuple[PageStatus, ...] = ("ok", "timeout", "error")

GENERIC_MODULE = "lm_eval_a11y.generic"


class GenericChecksMissingError(RuntimeError):
    """``generic=True`` asked for the generic page checks, and this installation has none."""


@dataclass(frozen=True)
class PageScore:
    """The outcome for one input: flat, typed, and the same for the same page.

    ``status`` says what happened to the input (:data:`STATUSES`) and ``error`` why, for any status
    but ``ok``. ``a11y_pass`` is the benchmark's verdict (no axe WCAG failure, every requirement
    check met, everything audited). ``score`` grades the page in [0, 1] (:func:`graded_score`): 1
    exactly when it passes, lower with every failure, 0 when it could not be judged.
    ``axe_wcag_failures`` counts failing nodes (colour contrast as decided by the rendered pixels),
    ``axe_rules`` names the axe rules with WCAG failures, ``checks_failed`` the requirement checks
    not met (for a timeout or an error, also those that never ran) out of ``checks_total``, and
    ``unaudited`` the content that could not be audited. ``case_id`` is the case whose checks ran
    (``None``: axe-core only). ``html_bytes`` and ``sha256`` are those of the HTML as rendered
    (UTF-8; for bytes, of the bytes; ``None`` when the input is not text or bytes). ``partial``:
    the evaluation stopped at the page's first decided failure (``stop_at_first_failure``), so the
    page fails and the other fields count only the steps that ran (``score`` is then an upper
    bound of the full evaluation's). ``text_chars``: characters of text the page showed as first
    rendered (letters, digits, punctuation, symbols of visible text; ``None`` when not rendered).
    """

    status: PageStatus
    error: str | None
    a11y_pass: bool
    score: float
    axe_wcag_failures: int
    axe_rules: tuple[str, ...]
    checks_failed: tuple[str, ...]
    checks_total: int
    unaudited: tuple[str, ...]
    case_id: str | None
    html_bytes: int
    sha256: str | None
    partial: bool = False
    text_chars: int | None = None

    @classmethod
    def rejected(cls, status: PageStatus, reason: str, *, html_bytes: int = 0, sha256: str | None = None) -> PageScore:
        """The score of an input that was not rendered: it fails, with the reason, and scores 0."""
        return cls(
            status=status,
            error=reason,
            a11y_pass=False,
            score=0.0,
            axe_wcag_failures=0,
            axe_rules=(),
            checks_failed=(),
            checks_total=0,
            unaudited=(),
            case_id=None,
            html_bytes=html_bytes,
            sha256=sha256,
        )

    @classmethod
    def from_observation(cls, obs: Observation) -> PageScore:
        verdict = score_observation(obs)
        rules = {f.rule_id for f in decided_wcag_failures(obs)}
        return cls(
            status=obs.status,
            error=obs.error,
            a11y_pass=verdict.passed,
            score=graded_score(obs),
            axe_wcag_failures=verdict.axe_failures,
            axe_rules=tuple(sorted(rules)),
            checks_failed=tuple(c.id for c in unmet_requirements(obs)),
            checks_total=verdict.requirements_total,
            unaudited=obs.audit.unaudited,
            case_id=obs.case_id,
            html_bytes=obs.html_bytes,
            sha256=obs.html_sha256 or None,
            partial=obs.audit.partial,
            text_chars=obs.text_chars,
        )

    @staticmethod
    def columns(scores: Iterable[PageScore], prefix: str = "a11y_") -> dict[str, list[Any]]:
        """Scores as columns (each :meth:`record` key to a list), e.g. for ``Dataset.map(batched=True)``."""
        rows = [score.record(prefix) for score in scores]
        return {key: [row[key] for row in rows] for key in PageScore.record_keys(prefix)}

    @staticmethod
    def record_keys(prefix: str = "a11y_") -> tuple[str, ...]:
        """The keys :meth:`record` writes, in field order."""
        return tuple(_key(f.name, prefix) for f in fields(PageScore))

    def record(self, prefix: str = "a11y_") -> dict[str, Any]:
        """The fields as one flat row: each name gets ``prefix`` (``a11y_pass`` stays as it is),
        tuples become lists, so the row goes into Parquet, JSON or a ``datasets`` column as is."""
        row: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            row[_key(f.name, prefix)] = list(value) if isinstance(value, tuple) else value
        return row


def _key(name: str, prefix: str) -> str:
    return name if name.startswith(prefix) else prefix + name


def content_digest(data: bytes) -> str:
    """The SHA-256 of a row's bytes, as its ``sha256`` column holds it."""
    return hashlib.sha256(data).hexdigest()


def _is_missing(value: object) -> bool:
    """None, and the missing values of pandas and numpy (NaN, ``pd.NA``, ``NaT``)."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def admit(value: object, *, max_bytes: int, extract: bool = False) -> tuple[str | None, PageScore | None]:
    """``(html, None)`` for an input to render, or ``(None, score)`` for one that will not be.

    ``extract``: the input is a model's answer; the page that stands for it is cut out as the
    lm-eval task does (:func:`lm_eval_a11y.extract.extract_html`) and then checked like any page.
    :func:`admit_answer` gives every page of an answer.
    """
    pages, _, rejected = admit_answer(value, max_bytes=max_bytes, extract=extract, every=False)
    return (pages[0], None) if pages else (None, rejected)


def admit_answer(
    value: object, *, max_bytes: int, extract: bool = True, every: bool = True
) -> tuple[list[str], int, PageScore | None]:
    """``(pages, primary, None)``: the pages of an input to render (with ``extract``, every page a
    person would take from the answer, :mod:`lm_eval_a11y.answer_pages`; only the one that stands
    for it unless ``every``) and the index of that one; or ``([], 0, score)`` for an input with no
    page to render. One page that cannot be rendered (too large, not a page) rejects the input."""
    if _is_missing(value):
        return [], 0, PageScore.rejected("missing", f"no HTML: the value is missing ({value!r})")
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        reason = f"not text: {len(data):,} bytes; decode them to a string first"
        return [], 0, PageScore.rejected("not_text", reason, html_bytes=len(data), sha256=content_digest(data))
    if not isinstance(value, str):
        return [], 0, PageScore.rejected("not_text", f"not text: a value of type {type(value).__name__}")
    from lm_eval_a11y.engine.unicode import repair_text

    if not extract:
        html, rejected = _admit_page(value, max_bytes=max_bytes)
        return ([html], 0, None) if html is not None else ([], 0, rejected)
    extraction = extract_html(value)
    if not extraction.found:
        data = repair_text(value)[0].encode("utf-8")
        reason = "not HTML: no HTML found in the answer (extracted as the lm-eval task does)"
        if extraction.how == "too-many-pages":
            reason = (
                f"not judged: the answer holds more than {MAX_PAGES} HTML pages (or {MAX_BLOCKS} HTML blocks), "
                "as the lm-eval task counts them"
            )
        return [], 0, PageScore.rejected("not_html", reason, html_bytes=len(data), sha256=content_digest(data))
    pages, primary = (list(extraction.judged), extraction.primary) if every else ([extraction.html], 0)
    for page in pages:
        html, rejected = _admit_page(page, max_bytes=max_bytes)
        if html is None:
            return [], 0, rejected
    return pages, primary, None


def _admit_page(text: str, *, max_bytes: int) -> tuple[str | None, PageScore | None]:
    from lm_eval_a11y.engine.unicode import repair_text

    # Counted as the evaluator counts them: the UTF-8 of the text with lone surrogates repaired.
    data = repair_text(text)[0].encode("utf-8")
    if len(data) > max_bytes:
        reason = f"the HTML is {len(data):,} bytes, above the limit of {max_bytes:,} bytes (max_html_bytes)"
        return None, PageScore.rejected("too_large", reason, html_bytes=len(data), sha256=content_digest(data))
    problem = not_a_page(text)
    if problem is not None:
        kind, reason = problem
        status: PageStatus = "empty" if kind == "empty" else "not_html"
        if kind == "answer":
            reason += "; score it with extraction (extract=True, --extract)"
        return None, PageScore.rejected(status, reason, html_bytes=len(data), sha256=content_digest(data))
    return text, None


def resolve_checks(case: str | Case | None = None, generic: bool = True) -> Case | None:
    """The case whose checks run on every page: ``case`` (an id or a :class:`Case`) if given,
    else the generic page checks when ``generic``, else none (axe-core only).

    Raises :class:`lm_eval_a11y.cases.CaseError` for an unknown id and
    :class:`GenericChecksMissingError` when the generic checks are asked for and not installed.
    """
    if case is not None:
        if isinstance(case, Case):
            return case
        if isinstance(case, str):
            return get_case(case)
        raise TypeError(f"case must be a case id or a Case, got {type(case).__name__}")
    if not generic:
        return None
    try:
        module = importlib.import_module(GENERIC_MODULE)
    except ModuleNotFoundError as err:
        if err.name != GENERIC_MODULE:
            raise
        raise GenericChecksMissingError(
            f"the generic page checks ({GENERIC_MODULE}) are not part of this installation; "
            "pass generic=False to run axe-core only, or case=<id> for a case's checks"
        ) from None
    found = module.generic_case()
    if not isinstance(found, Case):
        raise TypeError(f"{GENERIC_MODULE}.generic_case() returned {type(found).__name__}, not a Case")
    return found


def score_schema(prefix: str = "a11y_") -> Any:
    """The Arrow types of the score columns (:meth:`PageScore.record`): a writer that infers types
    from the first rows would type a column whose first values are all missing as null."""
    import pyarrow as pa

    types = {
        "status": pa.string(),
        "error": pa.string(),
        "a11y_pass": pa.bool_(),
        "score": pa.float64(),
        "axe_wcag_failures": pa.int64(),
        "axe_rules": pa.list_(pa.string()),
        "checks_failed": pa.list_(pa.string()),
        "checks_total": pa.int64(),
        "unaudited": pa.list_(pa.string()),
        "case_id": pa.string(),
        "html_bytes": pa.int64(),
        "sha256": pa.string(),
        "partial": pa.bool_(),
        "text_chars": pa.int64(),
    }
    names = [f.name for f in fields(PageScore)]
    keys = PageScore.record_keys(prefix)
    return pa.schema([pa.field(key, types[name]) for key, name in zip(keys, names, strict=True)])


def score_features(prefix: str = "a11y_") -> Any:
    """The score columns as ``datasets.Features``, for ``Dataset.map(..., features=...)``."""
    from datasets import Features

    return Features.from_arrow_schema(score_schema(prefix))


# ------------------------------------------------------------------ the shared pool

_pools: dict[EvaluatorSettings | None, Evaluator] = {}
_pools_lock = threading.Lock()


def shared_evaluator(settings: EvaluatorSettings | None = None) -> Evaluator:
    """This process's pool for ``settings`` (the defaults when None), started on first use and
    closed at exit. Callers never close it; pass your own :class:`Evaluator` to own one."""
    from lm_eval_a11y.engine.evaluator import Evaluator

    with _pools_lock:
        pool = _pools.get(settings)
        if pool is None:
            pool = _pools[settings] = Evaluator(settings)
        return pool


def _forget_inherited_pools() -> None:
    """In a forked child: the parent's pools live in the parent (their event-loop threads were not
    forked); the child must neither use nor close them, and starts its own when asked."""
    global _pools_lock
    for pool in _pools.values():
        atexit.unregister(pool.close)
    _pools.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_inherited_pools)


# ------------------------------------------------------------------ scoring


def score_pages(
    htmls: Iterable[object],
    case: str | Case | None = None,
    generic: bool = True,
    *,
    cases: Iterable[str | Case | None] | None = None,
    extract: bool = False,
    evaluator: Evaluator | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[PageScore]:
    """Score every input: one :class:`PageScore` each, in input order.

    ``case``: a case id or :class:`Case` whose checks run on every page instead of the generic
    ones. ``generic``: without a case, also run the generic page checks (else axe-core only).
    ``cases``: one case per input (an id, a :class:`Case`, or None or a blank id for ``case`` and
    ``generic``), e.g. a data set's case column, so each page is judged by its prompt's checks;
    all pages still reach the pool at once. ``extract``: the inputs are model answers; cut the
    page out first. ``evaluator``: the pool to use (yours stays open); by default this process's
    :func:`shared_evaluator`. ``progress`` is called with (pages rendered, pages to render) as
    pages finish.

    Bad inputs never raise: each gets a status and a reason. What raises is what no page could
    cause: an unknown case, missing generic checks, a browser that cannot start, ``cases`` of
    another length than the inputs.
    """
    items = list(htmls)
    checks_of = _checks_per_input(len(items), case, generic, cases)
    pool = evaluator if evaluator is not None else shared_evaluator()
    max_bytes = pool.settings.max_html_bytes
    scores: list[PageScore | None] = [None] * len(items)
    # Every page of an answer is rendered; the one with the lowest score is the row's score.
    to_render: list[tuple[int, str]] = []
    primaries: dict[int, int] = {}
    for index, value in enumerate(items):
        pages, primary, rejected = admit_answer(value, max_bytes=max_bytes, extract=extract)
        if rejected is not None:
            scores[index] = rejected
            continue
        primaries[index] = primary
        to_render.extend((index, html) for html in pages)
    if to_render:
        observations = pool.evaluate_many([(checks_of[i], html) for i, html in to_render], progress=progress)
        if len(observations) != len(to_render):
            raise RuntimeError(f"the evaluator returned {len(observations)} observations for {len(to_render)} pages")
        own: dict[int, list[PageScore]] = {}
        for (index, _), observation in zip(to_render, observations, strict=True):
            own.setdefault(index, []).append(PageScore.from_observation(observation))
        for index, page_scores in own.items():
            values = [p.score if p.status == "ok" else 0.0 for p in page_scores]
            scores[index] = page_scores[deciding_page(values, primaries[index])]
    done = [s for s in scores if s is not None]
    if len(done) != len(items):
        raise RuntimeError(f"{len(items) - len(done)} inputs got no score")
    return done


def _checks_per_input(
    count: int, case: str | Case | None, generic: bool, cases: Iterable[str | Case | None] | None
) -> list[Case | None]:
    """The checks for each of ``count`` inputs: its own case from ``cases``, else ``case`` or the
    generic checks. Each id is looked up once; the default is resolved only if an input needs it,
    so a column that names a case on every row needs no generic checks installed."""
    if cases is None:
        return [resolve_checks(case, generic)] * count
    given = list(cases)
    if len(given) != count:
        raise ValueError(f"cases holds {len(given)} values for {count} inputs; give one per input")
    resolved: dict[str, Case | None] = {}
    out: list[Case | None] = []
    for value in given:
        if isinstance(value, Case):
            out.append(value)
            continue
        if _is_missing(value) or (isinstance(value, str) and not value.strip()):
            key = ""  # the default of the call
        elif isinstance(value, str):
            key = value.strip()
        else:
            raise TypeError(f"cases must hold case ids, Case objects or None, got {type(value).__name__}")
        if key not in resolved:
            resolved[key] = resolve_checks(case, generic) if key == "" else get_case(key)
        out.append(resolved[key])
    return out
