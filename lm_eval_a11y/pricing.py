"""Prices per model for the cost columns of the report, read from a small YAML file.

Prices change and differ per provider and contract, so none are built in: the user states them
in a file (see ``pricing.example.yaml`` at the repository root)::

    currency: USD
    models:
      gpt-4o-mini:            {input_per_million: 0.15, output_per_million: 0.60}
      "SmolLM2-135M-Instruct*": {input_per_million: 0, output_per_million: 0}

A model of a run is matched by its full name (``pretrained=`` / ``model=`` of lm-eval's
``--model_args``), its GGUF file name, the name's last path part, or the report's short label:
exact names first, then shell-style patterns (``*``, ``?``). A model without a price has an
unknown cost, never a zero one.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["ModelPrice", "PriceTable", "PricingError", "load_pricing"]


class PricingError(ValueError):
    """The pricing file is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class ModelPrice:
    """Prices per million tokens, in the table's currency."""

    input_per_million: float
    output_per_million: float


@dataclass(frozen=True)
class PriceTable:
    currency: str
    prices: tuple[tuple[str, ModelPrice], ...]

    def lookup(self, names: Iterable[str | None]) -> tuple[str, ModelPrice] | None:
        """The first entry matching one of ``names`` (most specific name first); None if none does."""
        candidates = [n for n in names if n]
        for name in candidates:
            for pattern, price in self.prices:
                if pattern == name:
                    return pattern, price
        for name in candidates:
            for pattern, price in self.prices:
                if fnmatch.fnmatchcase(name, pattern):
                    return pattern, price
        return None


def _number(path: Path, model: str, field: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value < 0:
        raise PricingError(f"{path}: model {model!r}: {field} must be a number >= 0, got {value!r}")
    return float(value)


def parse_pricing(data: Any, path: Path) -> PriceTable:
    if not isinstance(data, Mapping) or not isinstance(data.get("models"), Mapping):
        raise PricingError(f"{path}: needs a 'models' mapping of model name to prices (see pricing.example.yaml)")
    unknown = set(data) - {"currency", "models"}
    if unknown:
        raise PricingError(
            f"{path}: unknown field(s) {', '.join(sorted(map(str, unknown)))} (allowed: currency, models)"
        )
    currency = data.get("currency", "USD")
    if not isinstance(currency, str) or not currency.strip():
        raise PricingError(f"{path}: 'currency' must be a string such as USD")
    prices: list[tuple[str, ModelPrice]] = []
    for model, entry in data["models"].items():
        if not isinstance(entry, Mapping):
            raise PricingError(f"{path}: model {model!r} needs input_per_million and output_per_million")
        extra = set(entry) - {"input_per_million", "output_per_million"}
        if extra or len(entry) != 2:
            raise PricingError(
                f"{path}: model {model!r} must have exactly input_per_million and output_per_million, "
                f"got {', '.join(sorted(map(str, entry)))}"
            )
        prices.append(
            (
                str(model),
                ModelPrice(
                    _number(path, str(model), "input_per_million", entry["input_per_million"]),
                    _number(path, str(model), "output_per_million", entry["output_per_million"]),
                ),
            )
        )
    return PriceTable(currency.strip(), tuple(prices))


def load_pricing(path: Path) -> PriceTable:
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise PricingError(f"{path}: cannot be read ({err.strerror})") from err
    except yaml.YAMLError as err:
        raise PricingError(f"{path}: is not valid YAML ({err})") from err
    return parse_pricing(data, Path(path))
