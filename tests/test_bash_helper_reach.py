"""Which helper-library functions may launch: recursive helpers get one answer."""

from __future__ import annotations

from servelint.sources.shell.script import read_script

LIB = """\
a() { b; c; }
b() { if [ "$MODE" = x ]; then MODE=y; a; fi; }
c() { vllm serve "$M"; }
"""
MAIN = """\
source ./lib.sh
M=first
a
M=second
MODE=x
b
"""


def test_a_helper_reaching_a_launch_through_its_caller_is_followed(tmp_path):
    # deciding a() asks b() while a() is still open; that "no" must not stick to b()
    (tmp_path / "lib.sh").write_text(LIB)
    (tmp_path / "run.sh").write_text(MAIN)
    res = read_script(str(tmp_path / "run.sh"), root=str(tmp_path))
    assert [s.argv[-1].text for s in res.launches] == ["first", "second"]


def test_the_answer_follows_the_callee_the_script_defines(tmp_path):
    # the same helper body: it may launch under run1.sh (its step() launches), not under
    # run2.sh; reading run1.sh first must not change how run2.sh is read
    (tmp_path / "lib.sh").write_text("h() { X=1; step; }\n")
    (tmp_path / "run1.sh").write_text('step() { vllm serve one; }\nsource ./lib.sh\nh\n')
    (tmp_path / "run2.sh").write_text('step() { :; }\nsource ./lib.sh\nh\nvllm serve "$X"\n')
    first = read_script(str(tmp_path / "run1.sh"), root=str(tmp_path))
    assert [t.text for t in first.launches[0].argv] == ["one"]
    (spec,) = read_script(str(tmp_path / "run2.sh"), root=str(tmp_path)).launches
    assert spec.argv[-1].symbolic  # h() only assigns: its globals become unknown
