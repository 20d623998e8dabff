"""Shared helpers of the isolation suite: pages, a record of what a verdict depends on, and the
processes of the browser a test started."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tiers import FULL_RUN

from lm_eval_a11y.cases import Case, get_case
from lm_eval_a11y.engine.evaluator import AsyncEvaluator
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"
ENGINE_PAGES = HERE.parent / "pages"
REPO = HERE.parents[1]
# How many rounds of the poisons run, each poison followed by another victim in each round: one in
# the default run, two with A11Y_SLOW=1, A11Y_ISOLATION_ROUNDS=5 or more for a longer soak (each
# round costs about two minutes on 2 cores: every victim waits out the late-change horizon).
ROUNDS = int(os.environ.get("A11Y_ISOLATION_ROUNDS", "2" if FULL_RUN else "1"))
BUDGET_S = 8.0
# What one evaluation may take beyond its budget on a busy machine: building the observation,
# leaving the document, a new context after a bad one.
GRACE_S = 4.0

T = TypeVar("T")


def page(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


def engine_page(name: str) -> str:
    return (ENGINE_PAGES / name).read_text(encoding="utf-8")


def login_case() -> tuple[Case, str]:
    """The login-form case and one of its passing examples: a real case with acting checks."""
    case = get_case("login-form")
    html = (REPO / "test_cases" / "login-form" / "examples" / "pass-alert-message.html").read_text(encoding="utf-8")
    return case, html


def verdict_record(obs: Observation) -> dict[str, Any]:
    """Everything of an observation that a verdict or a data team's filter reads, without times."""
    score = score_observation(obs)
    return {
        "status": obs.status,
        "error": obs.error,
        "passed": score.passed,
        "wcag_failures": sorted((f.rule_id, f.node_count) for f in obs.axe.wcag_failures),
        "best_practice": sorted((f.rule_id, f.node_count) for f in obs.axe.best_practice_findings),
        "checks": [(c.id, c.outcome, c.message) for c in obs.checks],
        "events": obs.events,
    }


async def in_order(ev: AsyncEvaluator, pairs: Sequence[tuple[Case | None, str]]) -> list[Observation]:
    """Evaluate ``pairs`` queued at once: with one slot and no waiting slots
    (``waiting_slots=0``) each starts on the renderer the one before it left, right after it
    (evaluate_many would reorder them by expected cost; a waiting slot would take the next
    sample while the one before waits out its late-change horizon)."""
    return list(await asyncio.gather(*(ev.evaluate(case, html) for case, html in pairs)))


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await coro

    return asyncio.run(main())


def descendants(root: int) -> set[int]:
    """``root`` and every process below it, from /proc (only the browser this test started)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        todo.extend(children.get(pid, ()))
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie waiting for its parent counts as gone)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.add(pid)
    return running


async def browser_tree(ev: AsyncEvaluator) -> set[int]:
    """The pids of the evaluator's browser and everything it started."""
    processes = await ev.browser_processes()
    (browser,) = [pid for pid, kind in processes if kind == "browser"]
    return descendants(browser) | {pid for pid, _ in processes}


async def closed_without_leftovers(ev: AsyncEvaluator, pids: set[int], wait_s: float = 15.0) -> set[int]:
    """Close the evaluator; the pids of ``pids`` still running ``wait_s`` later (empty is good)."""
    await ev.close()
    deadline = time.monotonic() + wait_s
    while alive(pids) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return alive(pids)


def memory_cgroup_missing() -> str | None:
    """Why this machine gives this process no writable memory cgroup, or None when it gives one.

    The documented limit of a machine (docs/isolation.md: a container without write access to
    the cgroup hierarchy, a cgroup v2 tree that does not delegate the memory controller), found
    without the code under test (lm_eval_a11y/engine/jail.py): the process's own memory cgroup, from
    /proc/self/cgroup and /proc/self/mounts, gets a child with a limit written and read back,
    which is then removed. The tests that need a cgroup are expected to fail exactly where this
    says why not.
    """
    try:
        membership = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = [line.split() for line in Path("/proc/self/mounts").read_text().splitlines()]
    except OSError as err:
        return f"cannot read /proc/self: {err}"
    tried: list[str] = []
    for line in membership:
        number, controllers, own = line.split(":", 2)
        if "memory" in controllers.split(","):
            fstype, limit_file = "cgroup", "memory.limit_in_bytes"
        elif number == "0" and controllers == "":
            fstype, limit_file = "cgroup2", "memory.max"
        else:
            continue
        for fields in mounts:
            if len(fields) < 4 or fields[2] != fstype or (fstype == "cgroup" and "memory" not in fields[3].split(",")):
                continue
            child = Path(fields[1]) / own.lstrip("/") / f"a11y-test-probe-{os.getpid()}"
            limit = 256 * 2**20
            try:
                child.mkdir()
            except OSError as err:
                tried.append(f"{fstype}: cannot make {child}: {err.strerror or err}")
                continue
            try:
                # Without O_CREAT: a file the kernel did not make is no limit.
                fd = os.open(child / limit_file, os.O_WRONLY)
                try:
                    os.write(fd, str(limit).encode())
                finally:
                    os.close(fd)
                if int((child / limit_file).read_text().split()[0]) // 4096 != limit // 4096:
                    tried.append(f"{fstype}: {limit_file} in {child} does not keep its limit")
                    continue
                return None
            except (OSError, ValueError) as err:
                tried.append(f"{fstype}: cannot set {limit_file} in {child}: {err}")
            finally:
                child.rmdir()
    return "; ".join(tried) or "no memory cgroup hierarchy is mounted"
