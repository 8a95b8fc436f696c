"""Which helper-library functions may launch: recursive helpers get one answer."""

from __future__ import annotations

from servelint.readers.bash import read_script

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
