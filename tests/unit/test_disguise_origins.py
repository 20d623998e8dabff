"""The origins a slot serves its samples on (engine/disguise.py): an https site on the web, a host
name no load of the slot has used, no port, and nothing that names a test or a local machine."""

from __future__ import annotations

import random
import re

from lm_eval_a11y.engine.browser import CHROMIUM_ARGS
from lm_eval_a11y.engine.disguise import HOST_RESOLVER_RULES, Origins

_TELLING = re.compile(r"localhost|\.(local|test|invalid|example|internal|arpa)$|^\d+\.\d+\.\d+\.\d+$|a11y|eval|sample")


def test_every_load_gets_a_fresh_https_origin_under_the_slot_s_site() -> None:
    origins = Origins(random.Random(7))
    urls = [origins.next() for _ in range(3000)]
    assert len(set(urls)) == len(urls)
    for url in urls:
        match = re.fullmatch(r"https://([a-z0-9-]+)\.([a-z-]+\.[a-z]+)/", url)
        assert match, url
        assert match.group(2) == origins.site
        assert not _TELLING.search(match.group(1) + "." + match.group(2)), url


def test_slots_get_different_sites() -> None:
    sites = {Origins(random.Random(seed)).site for seed in range(20)}
    assert len(sites) > 10, sites


def test_no_host_name_is_ever_looked_up() -> None:
    assert f"--host-resolver-rules={HOST_RESOLVER_RULES}" in CHROMIUM_ARGS
    assert HOST_RESOLVER_RULES.startswith("MAP * ~NOTFOUND")
