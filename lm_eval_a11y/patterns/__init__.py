"""Checks shared by the cases of one ARIA pattern, parameterised by the class names a prompt asks for."""

from __future__ import annotations

from lm_eval_a11y.patterns.modal_dialog import ModalDialog

__all__ = ["ModalDialog"]
