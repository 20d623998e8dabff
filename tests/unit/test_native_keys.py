"""The parts of the native button and link try (lm_eval_a11y/generic/native_keys.py) that need no
browser: which elements get which keys, what is left out of a click's change, and the comparison
for a click whose change differs between loads. The pages that exercise it in a real browser are
the generic examples `fail-native-*` and `pass-native-*` (docs/generic.md)."""

from __future__ import annotations

from collections import Counter

from lm_eval_a11y.engine.elements import Element
from lm_eval_a11y.generic.native_keys import (
    BUTTON_KEYS,
    LINK_KEYS,
    in_kind,
    keys_of,
    markers,
    same_classes,
    without,
)
from lm_eval_a11y.generic.same_effect import Effect


def _element(tag: str, role: str | None, **attributes: str) -> Element:
    return Element(
        ref=1,
        tag=tag,
        role=role,
        name="x",
        text="x",
        attributes=dict(attributes),
        properties={},
        visible=True,
        hidden_from_at=False,
        focusable=True,
        rect={},
    )


def test_buttons_get_enter_and_space_links_enter_others_nothing() -> None:
    assert keys_of(_element("button", "button")) == BUTTON_KEYS == ("Enter", "Space")
    assert keys_of(_element("input", "button", type="submit")) == BUTTON_KEYS
    assert keys_of(_element("a", "link", href="/care")) == LINK_KEYS == ("Enter",)
    assert keys_of(_element("a", "link")) is None  # no href: no link the browser activates
    assert keys_of(_element("input", "checkbox", type="checkbox")) is None
    assert keys_of(_element("summary", None)) is None
    assert keys_of(_element("div", "button", tabindex="0")) is None


def test_a_class_attribute_added_empty_is_no_change() -> None:
    effect = Effect({"4 @class": (None, ""), "5 @class": ("a b", "b a"), "6 @class": ("a", "a on")})
    left = without(effect, same_classes)
    assert set(left.changed) == {"6 @class"}
    assert not without(Effect({"4 @class": (None, "")}, focus="4"), same_classes)


def test_marks_are_classes_and_data_attributes_of_html_and_body_only() -> None:
    effect = Effect(
        {
            "0 @class": (None, "using-mouse"),
            "0 @data-theme": (None, "dark"),
            "0 @lang": ("en", "fr"),
            "3 @data-input": (None, "mouse"),
            "7 @class": (None, "open"),
            "9 $text": ("", "Added"),
        }
    )
    assert markers(effect, frozenset({0, 3})) == {"0 @class", "0 @data-theme", "3 @data-input"}
    assert markers(effect, frozenset()) == set()


def test_a_changing_click_is_matched_by_the_same_facts_changed_to_any_value() -> None:
    wanted = Effect({"9 $text": ("", "Mist the fronds.")}, Counter({"<li role=> 'Tip #'": 1}))
    other_tip = Effect({"9 $text": ("", "Repot in spring.")}, Counter({"<li role=> 'Another'": 1}))
    assert in_kind(other_tip, wanted)
    nothing = Effect({"8 $text": ("", "Use a mouse.")})
    assert not in_kind(nothing, wanted)
    removed = Effect({"9 $text": ("", None)}, Counter({"<li role=> 'Tip #'": 1}))
    assert not in_kind(removed, wanted)  # gone where the click left it present
    no_item = Effect({"9 $text": ("", "Repot in spring.")})
    assert not in_kind(no_item, wanted)
