"""The two runs of the suite: the default one (CI's, kept short) and the full one, ``A11Y_SLOW=1``,
which adds the long real-model runs, every case example and a second round of departure attacks
(tests/README.md)."""

from __future__ import annotations

import os

FULL_RUN = os.environ.get("A11Y_SLOW") == "1"
