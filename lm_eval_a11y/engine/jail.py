"""A hard memory ceiling for the evaluator's browser: a memory cgroup of its own.

The watchdog (:mod:`lm_eval_a11y.engine.memory`) reads memory from ``/proc`` every 0.25 s and kills
what is over a limit; a page that allocates faster than it has so far, or several pages growing
at once, can take the browser past its ceiling between two readings. The kernel has no such gap:
when a process of a memory cgroup would take the group past ``memory.limit_in_bytes`` (cgroup v1)
or ``memory.max`` (v2), the allocation waits for reclaim and, failing that, the kernel's
out-of-memory killer stops a process *of that group*. Chromium marks its renderers as the first
to go (``oom_score_adj`` 300, the GPU process 200, the browser 0), so the victim is the page that
holds the most.

The evaluator launches Chromium through a two-line shell script that moves itself into a cgroup
made for this evaluator and then ``exec``s Chromium, so every process of the browser (zygotes,
renderers, GPU) starts inside it and is charged from its first page. Where no memory cgroup can
be made (no write access to the hierarchy, a cgroup v2 tree that does not delegate the memory
controller), the browser runs as before and the watchdog alone keeps the ceiling, as well as it
can; :attr:`lm_eval_a11y.observation.Environment.memory_ceiling` says which applied.

Only cgroups this module made are ever touched: each is named ``lm-eval-a11y-<pid>-<n>`` below
the process's own cgroup, and removed when its evaluator closes.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MemoryJail", "open_jail"]

_log = logging.getLogger(__name__)
_PREFIX = "lm-eval-a11y-"
_serial = itertools.count(1)


@dataclass(frozen=True)
class MemoryJail:
    """One memory cgroup with a limit, for one evaluator's browser."""

    path: Path
    # The cgroup's own path as /proc/PID/cgroup writes it ("/a/b/lm-eval-a11y-12-1").
    cgroup: str
    version: int
    limit_bytes: int

    def launcher(self, executable: Path, folder: Path) -> Path:
        """A script that enters this cgroup and becomes ``executable`` with the same arguments.

        If it cannot enter (the cgroup was removed meanwhile), Chromium still starts, and
        :meth:`holds` tells the evaluator that the ceiling is not the kernel's.
        """
        script = folder / "chromium-in-cgroup"
        script.write_text(
            "#!/bin/sh\n"
            "# lm-eval-a11y: start Chromium inside the evaluator's memory cgroup (lm_eval_a11y/engine/jail.py)\n"
            f"echo $$ > {shlex.quote(str(self.path / 'cgroup.procs'))} 2>/dev/null"
            " || echo 'lm-eval-a11y: could not enter the memory cgroup' >&2\n"
            f'exec {shlex.quote(str(executable))} "$@"\n'
        )
        script.chmod(0o755)
        return script

    def holds(self, pid: int) -> bool:
        """Whether process ``pid`` runs inside this cgroup."""
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return False
        return any(version == self.version and path == self.cgroup for version, path in _memberships(lines))

    def oom_kills(self) -> int:
        """How many processes the kernel's out-of-memory killer stopped in this cgroup."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            text = (self.path / name).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def peak_bytes(self) -> int | None:
        """The most memory the cgroup has held (page cache included), where the kernel keeps it."""
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int((self.path / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def remove(self) -> bool:
        """Remove the cgroup; False while processes are still in it (or it could not go)."""
        try:
            self.path.rmdir()
        except FileNotFoundError:
            return True
        except OSError as err:
            _log.debug("memory cgroup %s not removed yet: %s", self.path, err)
            return False
        return True


def open_jail(limit_bytes: int, *, proc_self: Path = Path("/proc/self")) -> tuple[MemoryJail | None, str]:
    """Make a memory cgroup limited to ``limit_bytes`` below this process's own cgroup.

    Returns the jail, or None and the reason none could be made.
    """
    reasons: list[str] = []
    for version, directory, path in _own_cgroups(proc_self):
        jail, why = _make(version, directory, path, limit_bytes)
        if jail is not None:
            _sweep(directory)
            return jail, ""
        reasons.append(why)
    return None, "; ".join(reasons) or "no memory cgroup hierarchy is mounted"


def _memberships(lines: list[str]) -> list[tuple[int, str]]:
    """(version, cgroup path) of a /proc/PID/cgroup: v1's memory hierarchy and the v2 tree."""
    found: list[tuple[int, str]] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        number, controllers, path = parts
        if "memory" in controllers.split(","):
            found.append((1, path))
        elif number == "0" and controllers == "":
            found.append((2, path))
    return found


def _own_cgroups(proc_self: Path) -> list[tuple[int, Path, str]]:
    """This process's memory cgroups as (version, directory, cgroup path): v1's, then v2's."""
    try:
        membership = (proc_self / "cgroup").read_text().splitlines()
        mounts = (proc_self / "mountinfo").read_text().splitlines()
    except OSError:
        return []
    mounted: dict[int, tuple[str, str]] = {}
    for line in mounts:
        # id parent major:minor root mountpoint options [optional...] - fstype source superoptions
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        if tail[0] == "cgroup" and "memory" in tail[2].split(","):
            mounted.setdefault(1, (fields[3], fields[4]))
        elif tail[0] == "cgroup2":
            mounted.setdefault(2, (fields[3], fields[4]))
    found: list[tuple[int, Path, str]] = []
    for version, path in sorted(_memberships(membership)):
        if version not in mounted:
            continue
        root, mountpoint = mounted[version]
        inside = path
        if root != "/":
            if not (path == root or path.startswith(root + "/")):
                continue  # our cgroup is not visible under this mount
            inside = path[len(root) :]
        found.append((version, Path(mountpoint) / inside.lstrip("/"), path))
    return found


def _make(version: int, parent: Path, parent_cgroup: str, limit_bytes: int) -> tuple[MemoryJail | None, str]:
    limit_file = "memory.limit_in_bytes" if version == 1 else "memory.max"
    name = f"{_PREFIX}{os.getpid()}-{next(_serial)}"
    path = parent / name
    try:
        path.mkdir()
    except OSError as err:
        return None, f"cgroup v{version}: cannot make {path}: {err.strerror or err}"
    try:
        # The kernel makes a cgroup's files with the folder: written without O_CREAT, a plain
        # folder (not a cgroup hierarchy) fails here instead of passing for one.
        _write_existing(path / limit_file, str(limit_bytes))
        written = (path / limit_file).read_text().split()[0]
        # The kernel rounds a limit down to whole pages.
        if abs(int(written) - limit_bytes) > os.sysconf("SC_PAGE_SIZE"):
            raise OSError(f"the limit reads back as {written}")
    except (OSError, ValueError) as err:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None, f"cgroup v{version}: cannot set {limit_file} in {parent}: {err}"
    if version == 1:
        # Where swap exists, the limit is on memory, not on RAM: no swapping past the ceiling.
        with contextlib.suppress(OSError):
            _write_existing(path / "memory.swappiness", "0")
    cgroup = parent_cgroup.rstrip("/") + "/" + name
    return MemoryJail(path=path, cgroup=cgroup, version=version, limit_bytes=limit_bytes), ""


def _write_existing(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _sweep(parent: Path) -> None:
    """Remove cgroups that evaluators of processes now gone left behind (empty ones only)."""
    try:
        children = list(parent.iterdir())
    except OSError:
        return
    for child in children:
        if not child.name.startswith(_PREFIX) or not child.is_dir():
            continue
        pid = child.name[len(_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                child.rmdir()
