"""Numbers of the report, computed from loaded runs with the pure functions of :mod:`scoring`.

Headline numbers prefer what lm-eval itself reported (they are the numbers a user quotes, with
lm-eval's standard errors); when a metric is missing from the results file (an older run, a
filtered task) it is computed from the samples with the same formulas lm-eval's ``mean`` uses.
Everything per case, per rule and per check comes from the samples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lm_eval_a11y.observation import Observation
from lm_eval_a11y.pricing import PriceTable
from lm_eval_a11y.report.loading import RunSeries, Sample
from lm_eval_a11y.scoring import (
    PASS_AT_K,
    cost_per_pass,
    decided_violations,
    doc_metrics,
    generation_cost,
    mean_stderr,
)

__all__ = [
    "SUMMARY_METRICS",
    "CaseRow",
    "CheckFailure",
    "ContrastTotals",
    "CostSummary",
    "MetricValue",
    "Report",
    "RuleFailure",
    "SeriesSummary",
    "build_report",
]

SUMMARY_METRICS: tuple[tuple[str, str, bool], ...] = (
    # (metric, label, is a rate shown as a percentage)
    ("pass", "Pass rate", True),
    ("req_pass_rate", "Requirement pass rate", True),
    ("bp_pass_rate", "Best-practice pass rate", True),
    ("axe_clean", "axe-clean rate", True),
    ("checks_passed", "Requirement checks passed", True),
    ("axe_failures", "axe WCAG failures (nodes per sample)", False),
    ("html_found", "HTML found", True),
    ("truncated", "Truncated", True),
    ("contrast_overturned", "Contrast failures overturned by the pixels (nodes per sample)", False),
    ("contrast_resolved", "Contrast 'can't tell' resolved by the pixels (nodes per sample)", False),
    ("contrast_incomplete", "Contrast neither could decide (nodes per sample)", False),
)


@dataclass(frozen=True)
class ContrastTotals:
    """How much the pixel check of colour contrast moved in one run (docs/contrast.md): nodes
    summed over the run's samples. ``unknown`` samples have axe contrast results but no pixel
    data (records from before the check)."""

    samples_checked: int = 0
    overturned: int = 0
    resolved_pass: int = 0
    resolved_fail: int = 0
    incomplete: int = 0
    dark_scheme_samples: int = 0
    unknown: int = 0


def contrast_totals(observations: Sequence[Observation | None]) -> ContrastTotals:
    checked = overturned = resolved_pass = resolved_fail = incomplete = dark = unknown = 0
    for obs in observations:
        if obs is None:
            continue
        audit = obs.contrast
        if audit is None:
            unknown += any(f.rule_id == "color-contrast" for f in obs.axe.violations + obs.axe.incomplete)
            continue
        checked += 1
        overturned += audit.overturned
        resolved_pass += audit.resolved_pass
        resolved_fail += audit.resolved_fail
        incomplete += audit.still_incomplete
        dark += "dark" in audit.schemes
    return ContrastTotals(checked, overturned, resolved_pass, resolved_fail, incomplete, dark, unknown)


@dataclass(frozen=True)
class MetricValue:
    value: float
    stderr: float | None
    n: int
    source: str  # "lm-eval" or "samples"


@dataclass(frozen=True)
class CostSummary:
    """Tokens and cost of a set of samples; ``known`` of ``samples`` had token counts."""

    samples: int
    known: int
    input_tokens: int
    output_tokens: int
    hit_limit: int
    passed: int
    cost: float | None
    currency: str | None

    @property
    def complete(self) -> bool:
        return self.samples > 0 and self.known == self.samples

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def mean_input(self) -> float:
        return self.input_tokens / self.known if self.known else math.nan

    @property
    def mean_output(self) -> float:
        return self.output_tokens / self.known if self.known else math.nan

    @property
    def cost_per_pass(self) -> float | None:
        if self.cost is None or not self.complete:
            return None
        return cost_per_pass(self.cost, self.passed)


@dataclass(frozen=True)
class SeriesSummary:
    series: RunSeries
    metrics: Mapping[str, MetricValue]
    pass_at_k: Mapping[int, MetricValue]
    docs: int
    samples: int
    passed: int
    cost: CostSummary
    price_entry: str | None
    axe_versions: tuple[str, ...]
    chromium_versions: tuple[str, ...]
    contrast: ContrastTotals = field(default_factory=ContrastTotals)


@dataclass(frozen=True)
class CaseCell:
    samples: int
    passed: int
    cost: CostSummary

    @property
    def rate(self) -> float:
        return self.passed / self.samples if self.samples else math.nan


@dataclass(frozen=True)
class CaseRow:
    case_id: str
    title: str
    prompt: str
    wcag: tuple[str, ...]
    cells: tuple[CaseCell | None, ...]
    samples: tuple[tuple[Sample, ...], ...]
    # Each distinct prompt with the labels of the series that asked it, when the series asked
    # the case differently (prompt variants: lm_eval_a11y/variants.py); empty when they agree.
    prompts: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class RuleFailure:
    rule_id: str
    help: str
    help_url: str
    impact: str
    wcag: tuple[str, ...]
    best_practice: bool
    per_series: tuple[int, ...]
    nodes: int

    @property
    def total(self) -> int:
        return sum(self.per_series)


@dataclass(frozen=True)
class CheckFailure:
    case_id: str
    check_id: str
    type: str
    description: str
    per_series: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.per_series)


@dataclass(frozen=True)
class CriterionFailure:
    criterion: str
    rules: tuple[str, ...]
    per_series: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.per_series)


@dataclass(frozen=True)
class Report:
    summaries: tuple[SeriesSummary, ...]
    cases: tuple[CaseRow, ...]
    rules: tuple[RuleFailure, ...]
    checks: tuple[CheckFailure, ...]
    criteria: tuple[CriterionFailure, ...]
    ks: tuple[int, ...]
    currency: str | None
    notes: tuple[str, ...] = field(default=())
    unrendered: tuple[int, ...] = field(default=())

    @property
    def has_repeats(self) -> bool:
        return any(s.series.repeats > 1 for s in self.summaries)

    @property
    def total_samples(self) -> int:
        return sum(s.samples for s in self.summaries)


@dataclass
class _RuleAcc:
    """Scratch space while counting one axe rule over every sample."""

    help: str
    help_url: str
    impact: str
    wcag: tuple[str, ...]
    best_practice: bool
    nodes: int = 0
    per_series: list[int] = field(default_factory=list)


_IMPACT_ORDER = {"critical": 4, "serious": 3, "moderate": 2, "minor": 1}


def _by_doc(samples: Sequence[Sample]) -> dict[tuple[str, int], list[Sample]]:
    docs: dict[tuple[str, int], list[Sample]] = {}
    for s in samples:
        docs.setdefault(s.doc_key, []).append(s)
    return docs


def _ks(series: RunSeries) -> tuple[int, ...]:
    """k values worth a column: those lm-eval reported, the usual ones the repeats allow, and n."""
    n = series.repeats
    reported = {int(m[5:]) for m in series.reported if m.startswith("pass@") and m[5:].isdigit()}
    usual = {k for k in PASS_AT_K if k <= n}
    return tuple(sorted(reported | usual | ({n} if n > 1 else set())))


def _doc_numbers(series: RunSeries) -> list[dict[str, float]]:
    ks = _ks(series)
    return [doc_metrics([s.metrics for s in group], ks) for group in _by_doc(series.samples).values()]


def _computed(per_doc: list[dict[str, float]], metric: str) -> MetricValue | None:
    values = [d[metric] for d in per_doc if metric in d]
    if not values:
        return None
    mean, err = mean_stderr(values)
    return MetricValue(mean, None if math.isnan(err) else err, len(values), "samples")


def _n_docs(series: RunSeries) -> int | None:
    counts = series.results.get("n-samples")
    entry = counts.get(series.task) if isinstance(counts, Mapping) else None
    if isinstance(entry, Mapping):
        value = entry.get("effective", entry.get("original"))
        if isinstance(value, int):
            return value
    return None


def _metric(series: RunSeries, per_doc: list[dict[str, float]], metric: str) -> MetricValue | None:
    reported = series.reported.get(metric)
    if reported is not None and not math.isnan(reported[0]):
        # lm-eval averaged over the docs where the metric applies (a doc whose samples held no
        # HTML has no axe or check numbers): count those, not every doc of the task.
        applicable = sum(1 for doc in per_doc if metric in doc)
        n = applicable or _n_docs(series) or len(per_doc)
        return MetricValue(reported[0], reported[1], n, "lm-eval")
    return _computed(per_doc, metric)


def cost_of(samples: Sequence[Sample], price: tuple[str, float, float] | None, currency: str | None) -> CostSummary:
    known = [s for s in samples if s.tokens is not None]
    tokens_in = sum(s.tokens.input for s in known if s.tokens is not None)
    tokens_out = sum(s.tokens.output for s in known if s.tokens is not None)
    cost = None
    if price is not None and known and len(known) == len(samples):
        cost = sum(
            generation_cost(s.tokens.input, s.tokens.output, price[1], price[2]) for s in known if s.tokens is not None
        )
    return CostSummary(
        samples=len(samples),
        known=len(known),
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        hit_limit=sum(1 for s in known if s.tokens is not None and s.tokens.hit_limit),
        passed=sum(s.passed for s in samples),
        cost=cost,
        currency=currency if cost is not None else None,
    )


def _price(series: RunSeries, pricing: PriceTable | None) -> tuple[str, float, float] | None:
    if pricing is None:
        return None
    names = [series.model_name, series.model_name.rstrip("/").rsplit("/", 1)[-1], series.short_name]
    gguf = series.model_args.get("gguf_file")
    if gguf:
        names.insert(1, gguf)
    hit = pricing.lookup(names)
    if hit is None:
        return None
    return hit[0], hit[1].input_per_million, hit[1].output_per_million


def _versions(samples: Sequence[Sample], attr: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for s in samples:
        env = s.observation.environment if s.observation else None
        if env is not None:
            seen[getattr(env, attr)] = None
    return tuple(seen)


def summarise(series: RunSeries, pricing: PriceTable | None) -> SeriesSummary:
    per_doc = _doc_numbers(series)
    metrics = {name: value for name, *_ in SUMMARY_METRICS if (value := _metric(series, per_doc, name)) is not None}
    pass_at: dict[int, MetricValue] = {}
    for k in _ks(series):
        value = _metric(series, per_doc, f"pass@{k}")
        if value is not None:
            pass_at[k] = value
    price = _price(series, pricing)
    currency = pricing.currency if pricing else None
    return SeriesSummary(
        series=series,
        metrics=metrics,
        pass_at_k=pass_at,
        docs=len(per_doc),
        samples=len(series.samples),
        passed=sum(s.passed for s in series.samples),
        cost=cost_of(series.samples, price, currency),
        price_entry=price[0] if price else None,
        axe_versions=_versions(series.samples, "axe_version"),
        chromium_versions=_versions(series.samples, "chromium_version"),
        contrast=contrast_totals([s.observation for s in series.samples]),
    )


def _failing_checks(sample: Sample) -> list[tuple[str, str, str]]:
    if sample.observation is None:
        return []
    return [(c.id, c.type, c.description) for c in sample.observation.checks if c.outcome in ("fail", "error")]


def build_report(series: Sequence[RunSeries], pricing: PriceTable | None = None) -> Report:
    """All the numbers of one report, columns in the order the series were given."""
    summaries = tuple(summarise(s, pricing) for s in series)
    width = len(series)
    prices = [_price(s, pricing) for s in series]
    currency = pricing.currency if pricing else None

    case_ids: dict[str, None] = {}
    for s in series:
        for sample in s.samples:
            case_ids.setdefault(sample.case_id, None)
    rows = []
    for case_id in sorted(case_ids):
        doc = next((s.cases[case_id] for s in series if case_id in s.cases), None)
        per_series = tuple(tuple(x for x in s.samples if x.case_id == case_id) for s in series)
        cells = tuple(
            CaseCell(len(group), sum(x.passed for x in group), cost_of(group, prices[i], currency)) if group else None
            for i, group in enumerate(per_series)
        )
        asked: dict[str, list[str]] = {}
        for s in series:
            if case_id in s.cases:
                asked.setdefault(s.cases[case_id].prompt, []).append(s.label)
        rows.append(
            CaseRow(
                case_id=case_id,
                title=doc.title if doc else case_id,
                prompt=doc.prompt if doc else "",
                wcag=doc.wcag if doc else (),
                cells=cells,
                samples=per_series,
                prompts=tuple((text, tuple(labels)) for text, labels in asked.items()) if len(asked) > 1 else (),
            )
        )

    rules: dict[str, _RuleAcc] = {}
    check_counts: dict[tuple[str, str], list[int]] = {}
    check_info: dict[tuple[str, str], tuple[str, str]] = {}
    criterion_counts: dict[str, list[int]] = {}
    criterion_rules: dict[str, set[str]] = {}
    for i, s in enumerate(series):
        for sample in s.samples:
            obs = sample.observation
            if obs is not None:
                sample_criteria: set[str] = set()
                for finding in decided_violations(obs):
                    acc = rules.get(finding.rule_id)
                    if acc is None:
                        acc = rules[finding.rule_id] = _RuleAcc(
                            finding.help, finding.help_url, finding.impact or "", finding.wcag, finding.best_practice
                        )
                        acc.per_series = [0] * width
                    acc.nodes += finding.node_count
                    acc.per_series[i] += 1
                    if _IMPACT_ORDER.get(finding.impact or "", 0) > _IMPACT_ORDER.get(acc.impact, 0):
                        acc.impact = finding.impact or ""
                    if not finding.best_practice:
                        for sc in finding.wcag:
                            sample_criteria.add(sc)
                            criterion_rules.setdefault(sc, set()).add(finding.rule_id)
                for sc in sample_criteria:
                    criterion_counts.setdefault(sc, [0] * width)[i] += 1
            for check_id, check_type, description in _failing_checks(sample):
                key = (sample.case_id, check_id)
                check_counts.setdefault(key, [0] * width)[i] += 1
                check_info[key] = (check_type, description)

    rule_rows = tuple(
        sorted(
            (
                RuleFailure(
                    rule_id=rule_id,
                    help=acc.help,
                    help_url=acc.help_url,
                    impact=acc.impact,
                    wcag=acc.wcag,
                    best_practice=acc.best_practice,
                    per_series=tuple(acc.per_series),
                    nodes=acc.nodes,
                )
                for rule_id, acc in rules.items()
            ),
            key=lambda r: (-r.total, r.best_practice, r.rule_id),
        )
    )
    check_rows = tuple(
        sorted(
            (
                CheckFailure(case_id, check_id, *check_info[(case_id, check_id)], per_series=tuple(counts))
                for (case_id, check_id), counts in check_counts.items()
            ),
            key=lambda c: (-c.total, c.type != "R", c.case_id, c.check_id),
        )
    )
    criterion_rows = tuple(
        sorted(
            (
                CriterionFailure(sc, tuple(sorted(criterion_rules[sc])), tuple(counts))
                for sc, counts in criterion_counts.items()
            ),
            key=lambda c: (-c.total, tuple(int(p) for p in c.criterion.split(".") if p.isdigit())),
        )
    )
    ks = sorted({k for s in summaries for k in s.pass_at_k})
    notes = tuple(f"{s.label}: {note}" for s in series for note in s.notes)
    return Report(
        summaries=summaries,
        cases=tuple(rows),
        rules=rule_rows,
        checks=check_rows,
        criteria=criterion_rows,
        ks=tuple(ks),
        currency=currency,
        notes=notes,
        unrendered=tuple(sum(1 for x in s.samples if x.observation is None) for s in series),
    )
