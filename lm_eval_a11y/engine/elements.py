"""What a check reads of the page: frozen snapshots of elements, and what the helpers found.

Snapshots do not update themselves; a check reads the page again (``Session.refresh``) after it acts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "Change",
    "Element",
    "Heading",
    "KeyboardFacts",
    "KeyboardWalk",
    "Landmark",
    "Listeners",
    "Listening",
    "TabStop",
    "element_from_probe",
]


@dataclass(frozen=True)
class Element:
    """A snapshot of one element as assistive technology and a sighted user would meet it.

    Snapshots do not update themselves: after an interaction call :meth:`Session.refresh`.

    ``visible``: a sighted user can see it: rendered, with a size, not transparent, and (axe-core's
    judgement) not moved off the page, clipped away or cut off by an ancestor's overflow.
    ``hidden_from_at``: assistive technology does not present it (axe-core's judgement, or inert).
    """

    ref: int
    tag: str
    role: str | None
    name: str
    text: str
    attributes: dict[str, str]
    properties: dict[str, Any]
    visible: bool
    hidden_from_at: bool
    focusable: bool
    rect: dict[str, float]
    connected: bool = True

    def attr(self, name: str) -> str | None:
        return self.attributes.get(name)

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple((self.attributes.get("class") or "").split())

    def state(self, name: str) -> str | None:
        """An ARIA state such as ``expanded``; native state (``checked``, ``open``) as fallback."""
        value = self.attributes.get(f"aria-{name}")
        if value is not None:
            return value
        native = self.properties.get(name)
        if isinstance(native, bool):
            return "true" if native else "false"
        return None

    def describe(self) -> str:
        label = f"<{self.tag}"
        if self.attributes.get("id"):
            label += f" id={self.attributes['id']!r}"
        if self.classes:
            label += f" class={' '.join(self.classes)!r}"
        label += ">"
        name = self.name if len(self.name) <= 80 else self.name[:77] + "..."
        return f"{label} (role {self.role or 'none'}, name {name!r})"


@dataclass(frozen=True)
class Heading:
    ref: int
    level: int
    name: str


@dataclass(frozen=True)
class Landmark:
    ref: int
    role: str
    name: str


@dataclass(frozen=True)
class Listening:
    """Event types the page listens for on one target (:meth:`Session.event_listeners`).

    ``target`` is ``"window"``, ``"document"`` or ``"element"``; ``ref`` and ``tag`` name the
    element (a listener on a shadow root counts as one on its host)."""

    target: str
    types: tuple[str, ...]
    ref: int | None = None
    tag: str = ""


@dataclass(frozen=True)
class Listeners:
    """What :meth:`Session.event_listeners` found: the targets listened on, and whether elements
    past its limit were left out."""

    targets: tuple[Listening, ...]
    truncated: bool = False


@dataclass(frozen=True)
class KeyboardFacts:
    """What the keyboard can do with one element (:meth:`Session.keyboard_facts`).

    ``rendered``: drawn with a size and not ``visibility: hidden`` (a mouse can point at it; the
    other facts are only gathered for rendered elements). ``control``: ``"native"`` (the browser
    works it from the keyboard), ``"widget"`` (an ARIA widget role; the page must) or None.
    ``tab_stop``: in the Tab order. ``reachable``: a Tab stop, or an item of a composite widget
    (listbox, menu, tablist, grid...) whose container or controlling element is one.
    ``key_handled``: a key listener on it, around it, on that container, the document or the
    window. ``click_heard``: a click listener on it, around it, the document or the window.
    ``click_activated``: the browser turns Enter or Space on it into a click (buttons, links,
    checkboxes...). ``inside_workable``: the reference of the nearest control around it that the
    keyboard can reach and work, if any; ``holds_workable``: it holds such a control.
    ``backdrop``: an empty layer over half the viewport or more, out of the flow, while a dialog
    is open (a dialog's backdrop)."""

    ref: int
    rendered: bool
    disabled: bool
    role: str | None
    control: str | None
    tab_stop: bool
    reachable: bool
    key_handled: bool
    click_heard: bool
    click_activated: bool
    inside_workable: int | None
    holds_workable: bool
    backdrop: bool = False


@dataclass(frozen=True)
class TabStop:
    """One stop of :meth:`Session.tab_stops`: the element's reference, its place in the walk and
    its kind (tag, role, type and classes joined with ``|``, how pages style focus)."""

    ref: int
    index: int
    kind: str


@dataclass(frozen=True)
class KeyboardWalk:
    """Where :meth:`Session.keyboard_walk` took focus.

    ``stops``: the references focus met, in order. ``left_page``: focus went past the page's last
    (or, backwards, first) stop to the browser, as it does on a page without a trap.
    ``cycle``: the stops focus went round among without leaving the page, when it did;
    ``released``: whether Escape then let focus go on and leave (None without a cycle).
    ``presses``: the keys pressed, at most the walk's bound."""

    key: str
    stops: tuple[int, ...]
    left_page: bool
    cycle: tuple[int, ...] = ()
    released: bool | None = None
    presses: int = 0


@dataclass(frozen=True)
class Change:
    """One change a watched element went through (:meth:`Session.watch`), in the order they came.

    ``kind`` is ``"attribute"`` (``name`` was set to ``value``; None when removed) or
    ``"children"`` (``added`` and ``removed`` elements somewhere inside it). ``state`` holds the
    watched attributes' values right after the change, as ``(name, value)`` pairs."""

    kind: str
    name: str | None = None
    value: str | None = None
    added: int = 0
    removed: int = 0
    state: tuple[tuple[str, str | None], ...] = ()

    def attribute(self, name: str) -> str | None:
        """The watched attribute's value right after this change."""
        return dict(self.state).get(name)


def element_from_probe(data: dict[str, Any]) -> Element:
    return Element(
        ref=int(data["ref"]),
        tag=data["tag"],
        role=data.get("role"),
        name=data.get("name") or "",
        text=data.get("text") or "",
        attributes=dict(data.get("attributes") or {}),
        properties=dict(data.get("properties") or {}),
        visible=bool(data.get("visible")),
        hidden_from_at=bool(data.get("hidden_from_at")),
        focusable=bool(data.get("focusable")),
        rect=dict(data.get("rect") or {}),
        connected=bool(data.get("connected", True)),
    )
