"""Finding this process's memory cgroup from /proc (no cgroup is made or touched here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lm_eval_a11y.engine.jail import _own_cgroups, open_jail

V1_MOUNTS = """\
22 1 0:20 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
30 22 0:26 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 22 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
38 22 0:34 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_MEMBERSHIP = "4:memory:/jobs/abc\n1:cpu:/\n0::/\n"


def _proc(tmp_path: Path, mounts: str, membership: str) -> Path:
    (tmp_path / "mountinfo").write_text(mounts)
    (tmp_path / "cgroup").write_text(membership)
    return tmp_path


def test_v1_memory_hierarchy_comes_first_then_the_v2_tree(tmp_path: Path) -> None:
    found = _own_cgroups(_proc(tmp_path, V1_MOUNTS, V1_MEMBERSHIP))
    assert found == [
        (1, Path("/sys/fs/cgroup/memory/jobs/abc"), "/jobs/abc"),
        (2, Path("/sys/fs/cgroup/unified"), "/"),
    ]


def test_a_mount_of_a_sub_tree_is_followed_from_its_root(tmp_path: Path) -> None:
    # A container sees its own cgroup mounted as the hierarchy's root.
    mounts = "40 1 0:40 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
    found = _own_cgroups(_proc(tmp_path, mounts, "0::/kubepods/pod1/app\n"))
    assert found == [(2, Path("/sys/fs/cgroup/app"), "/kubepods/pod1/app")]


def test_a_cgroup_outside_the_mounted_sub_tree_is_not_used(tmp_path: Path) -> None:
    mounts = "40 1 0:40 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
    assert _own_cgroups(_proc(tmp_path, mounts, "0::/elsewhere\n")) == []


@pytest.mark.parametrize(
    ("mounts", "membership"),
    [
        pytest.param("", V1_MEMBERSHIP, id="nothing-mounted"),
        pytest.param(V1_MOUNTS, "", id="no-membership"),
    ],
)
def test_no_cgroup_found_means_no_jail_and_a_reason(tmp_path: Path, mounts: str, membership: str) -> None:
    jail, why = open_jail(2**30, proc_self=_proc(tmp_path, mounts, membership))
    assert jail is None
    assert why


def test_a_hierarchy_we_cannot_write_gives_the_reason(tmp_path: Path) -> None:
    # The "hierarchy" is a plain folder: a folder can be made in it (even by root), but it gets no
    # memory.limit_in_bytes from the kernel, so it is not taken for a cgroup and is removed.
    root = tmp_path / "cg"
    root.mkdir()
    proc = tmp_path / "proc"
    proc.mkdir()
    mounts = f"33 22 0:29 / {root} rw - cgroup cgroup rw,memory\n"
    jail, why = open_jail(2**30, proc_self=_proc(proc, mounts, "4:memory:/\n"))
    assert jail is None
    assert why.startswith("cgroup v1: cannot set memory.limit_in_bytes"), why
    assert list(root.iterdir()) == []
