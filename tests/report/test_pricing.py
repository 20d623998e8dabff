"""The pricing file: format, matching order, and errors that name the entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from lm_eval_a11y.pricing import ModelPrice, PricingError, load_pricing
from lm_eval_a11y.scoring import cost_per_pass, generation_cost

EXAMPLE = Path(__file__).resolve().parents[2] / "pricing.example.yaml"


def test_shipped_example_loads() -> None:
    table = load_pricing(EXAMPLE)
    assert table.currency == "USD"
    hit = table.lookup(["SmolLM2-135M-Instruct.Q4_1"])
    assert hit is not None and hit[1] == ModelPrice(0.0, 0.0)
    assert table.lookup(["my-org/model-7b"]) == ("my-org/*", ModelPrice(0.10, 0.30))
    assert table.lookup(["unknown-model"]) is None


def test_exact_name_wins_over_a_pattern(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "models:\n"
        "  'a*': {input_per_million: 1, output_per_million: 1}\n"
        "  ab: {input_per_million: 2, output_per_million: 3}\n"
    )
    table = load_pricing(path)
    assert table.lookup(["ab"]) == ("ab", ModelPrice(2.0, 3.0))
    assert table.lookup([None, "full/path/ab", "ab"]) == ("ab", ModelPrice(2.0, 3.0))
    assert table.lookup(["ax"]) == ("a*", ModelPrice(1.0, 1.0))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "needs a 'models' mapping"),
        ("models: {m: {input_per_million: -1, output_per_million: 1}}", "input_per_million must be a number >= 0"),
        ("models: {m: {input_per_million: 1}}", "must have exactly input_per_million and output_per_million"),
        ("models: {m: {input_per_million: 1, output_per_million: '2'}}", "output_per_million must be a number"),
        ("models: {m: 3}", "needs input_per_million"),
        ("models: {}\nprices: 1", "unknown field"),
        ("models: [", "not valid YAML"),
    ],
)
def test_malformed_files_are_explained(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(PricingError, match=message):
        load_pricing(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PricingError, match="cannot be read"):
        load_pricing(tmp_path / "nope.yaml")


def test_cost_formulas() -> None:
    assert generation_cost(1_000_000, 500_000, 0.5, 1.5) == pytest.approx(1.25)
    assert generation_cost(0, 0, 3, 4) == 0
    with pytest.raises(ValueError, match="negative"):
        generation_cost(-1, 0, 1, 1)
    assert cost_per_pass(3.0, 4) == pytest.approx(0.75)
    assert str(cost_per_pass(3.0, 0)) == "nan"
