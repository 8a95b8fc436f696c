from stub_rules import make_finding

from servelint.pipeline.ignores import apply_ignores, parse_ignores

KNOWN = {"flag-unknown", "SL101", "env-deprecated", "SL301"}


def apply(files: dict[str, str], findings, **kw):
    return apply_ignores(findings, files.get, KNOWN, **kw)


def codes(findings):
    return [(f.code, f.span.line, f.span.column) for f in findings]


def test_trailing_comment_ignores_its_own_line_only():
    text = "a: 1\nb: 2  # servelint: ignore[flag-unknown] fork flag\nc: 3\n"
    on_line = make_finding("r.yaml", 2, 1)
    below = make_finding("r.yaml", 3, 1)
    kept, ignored, extra = apply({"r.yaml": text}, [on_line, below])
    assert ignored == [on_line] and kept == [below] and extra == []


def test_standalone_comment_ignores_next_line_by_code_or_name():
    text = "# servelint: ignore[SL101] reason\nx: 1\ny: 2\n"
    kept, ignored, extra = apply({"r.yaml": text}, [make_finding("r.yaml", 2, 4),
                                                   make_finding("r.yaml", 3, 1)])
    assert codes(ignored) == [("SL101", 2, 4)] and codes(kept) == [("SL101", 3, 1)]
    assert extra == []
    # lower-case code and a kebab name both work
    text = "# servelint: ignore[sl101]\nx: 1\n"
    assert apply({"r.yaml": text}, [make_finding("r.yaml", 2, 1)])[1]


def test_several_ids_and_stacked_comments():
    text = ("# servelint: ignore[env-deprecated, flag-unknown]\n"
            "# servelint: ignore[SL301]\n"
            "X=1 vllm serve m --bogus\n")
    flag = make_finding("r.sh", 3, 19)
    env = make_finding("r.sh", 3, 1, code="SL301", rule="env-deprecated")
    kept, ignored, extra = apply({"r.sh": text}, [flag, env])
    assert kept == [] and len(ignored) == 2 and extra == []


def test_comment_above_a_continued_bash_command_covers_its_first_line_only():
    """Issue 17: a comment above a multi-line command hid a real error two lines below."""
    text = ("# servelint: ignore[flag-unknown] needed by our fork\n"
            "vllm serve m --fork-flag \\\n"
            "  --tp 2 \\\n"
            "  --bogus 1\n"
            "vllm serve m --bogus 2\n")
    first = make_finding("r.sh", 2, 14)
    two_below = make_finding("r.sh", 4, 3)
    after = make_finding("r.sh", 5, 14)
    kept, ignored, _ = apply({"r.sh": text}, [first, two_below, after])
    assert ignored == [first] and kept == [two_below, after]


def test_trailing_comment_on_the_last_line_of_a_multiline_span_covers_it():
    text = "command: |\n  vllm serve m\n  --bogus  # servelint: ignore[flag-unknown]\n"
    finding = make_finding("r.yaml", 1, 1, end_line=3, end_column=10)
    assert apply({"r.yaml": text}, [finding])[1] == [finding]
    inside = "command: |\n  vllm serve m  # servelint: ignore[flag-unknown]\n  --bogus\n"
    assert apply({"r.yaml": inside}, [finding])[1] == []  # a middle line covers nothing


def test_markdown_comment():
    text = "Run:\n<!-- servelint: ignore[flag-unknown] demo -->\n    vllm serve m --bogus\n"
    finding = make_finding("README.md", 3, 18)
    kept, ignored, extra = apply({"README.md": text}, [finding])
    assert ignored == [finding] and extra == []


def test_other_rules_files_and_hash_inside_words_are_not_ignored():
    text = "x: 1  # servelint: ignore[env-deprecated]\ny: a#servelint: ignore[flag-unknown]\n"
    kept, ignored, extra = apply({"r.yaml": text}, [make_finding("r.yaml", 1, 1),
                                                   make_finding("r.yaml", 2, 1),
                                                   make_finding("other.yaml", 1, 1)])
    assert len(kept) == 3 and ignored == []
    assert codes(extra) == [("SL901", 1, 27)]  # env-deprecated matched nothing


def test_unused_and_unknown_ids_are_reported_on_the_id():
    text = "x: 1  # servelint: ignore[flag-unknown, flag-unkown, SL301] why\n"
    kept, ignored, extra = apply({"r.yaml": text}, [make_finding("r.yaml", 1, 1)])
    assert len(ignored) == 1
    by_code = {f.code: f for f in extra}
    assert set(by_code) == {"SL901", "SL902"}
    unknown = by_code["SL902"]
    assert unknown.rule == "unknown-rule-in-ignore"
    assert unknown.message == ('unknown rule "flag-unkown" in ignore comment; '
                               'did you mean "flag-unknown"?')
    assert text[unknown.span.column - 1:unknown.span.end_column - 1] == "flag-unkown"
    unused = by_code["SL901"]
    assert unused.rule == "unused-ignore"
    assert text[unused.span.column - 1:unused.span.end_column - 1] == "SL301"
    assert unused.message == 'unused ignore: no "SL301" finding on line 1'


def test_ignore_without_ids_is_reported():
    text = "x: 1  # servelint: ignore\n"
    kept, ignored, extra = apply({"r.yaml": text}, [make_finding("r.yaml", 1, 1)])
    assert len(kept) == 1 and codes(extra) == [("SL902", 1, 7)]


def test_unused_ignore_in_a_file_without_findings_when_scanned():
    files = {"clean.sh": "# servelint: ignore[flag-unknown]\nvllm serve m\n"}
    assert apply(files, [])[2] == []
    extra = apply(files, [], checked_paths=["clean.sh"])[2]
    assert codes(extra) == [("SL901", 1, 21)]
    assert extra[0].message == 'unused ignore: no "flag-unknown" finding on lines 1-2'


def test_no_ignores_keeps_everything():
    text = "x: 1  # servelint: ignore[flag-unknown, nope]\n"
    finding = make_finding("r.yaml", 1, 1)
    assert apply({"r.yaml": text}, [finding], enabled=False) == ([finding], [], [])


def test_unreadable_source_keeps_findings():
    finding = make_finding("gone.yaml", 1, 1)
    assert apply({}, [finding]) == ([finding], [], [])


def test_parse_reason_and_targets():
    (comment,) = parse_ignores("r.sh", "\n# servelint: ignore[a,b]  the reason \nx\n")
    assert [r.text for r in comment.ids] == ["a", "b"]
    assert comment.reason == "the reason"
    assert comment.targets == frozenset({2, 3})
