"""A TensorRT-LLM LLM API option file checked on its own (``extra-llm-api-config.yml``, a
Dynamo recipe's ``agg.yaml``): recognised by content, judged through the launches of the same
checkout that name it.

``claims``: a ``.yaml``/``.yml`` file no other reader took whose top-level keys are mostly
LLM API argument names of a profiled TensorRT-LLM release (``recognise``). ``read``: the
launches of the checkout that name it (``naming``: the launchers and guides that mention its
name, read by their own readers; a launch names it when its option file was found at this
path), each judged again on this file alone (``judging_spec``: the launch's engine,
entrypoint, release, image and ``--backend``, its model left symbolic), so that the findings
are the naming launch's, with spans in this file, and merge with them when both are checked.
A file no launch names is one line saying it is not judged: the backend and the release are
the launch's to choose.
"""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use
from servelint.sources.option_file.recognise import looks_like_llm_api

read_option_file = on_first_use("servelint.sources.option_file.naming", "read_option_file")


class OptionFileReader:
    name = "option-file"

    def claims(self, path: Path, head: Head) -> bool:
        if path.suffix.lower() not in (".yaml", ".yml"):
            return False
        return looks_like_llm_api(head.text(16384))

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        return read_option_file(path, ctx)
