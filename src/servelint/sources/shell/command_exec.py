"""Commands of the static bash interpreter: builtins, function calls, ``source``, child shells,
``eval`` and launch recording (a mixin of :class:`~.interpreter.Interpreter`)."""

from __future__ import annotations

import os
import re

from servelint.sources.shell.parts import (
    first_named,
)

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

from servelint.engines import registry
from servelint.launches import CommandRecord, Origin, assemble, in_container, starts_launch
from servelint.launches.assemble import provide_config_file
from servelint.launches.recognise import config_value, strip_wrappers
from servelint.model import EnvVar, LaunchSpec, Token
from servelint.sources.common.option_files import KEY_SPANS, file_flags, key_spans
from servelint.sources.common.pip import parse_pip_command
from servelint.sources.shell.flows import (
    fork,
    unknown_var,
)
from servelint.sources.shell.option_paths import disk_file, track_cd
from servelint.sources.shell.syntax import (
    global_assignments,
)
from servelint.sources.shell.values import (
    Field,
    Piece,
    Source,
    State,
    is_symbolic,
    text_of,
)
from servelint.sources.shell.words import (
    echo_output,
    relevant_text,
    seq_output,
    simple_test,
)


def first_named_or_self(node):
    return first_named(node) or node


def _field(tok: Token) -> Field:
    return Field((Piece(tok.text, tok.symbolic, tok.span),), tok.span)


class CommandMixin:
    """Simple commands and what they call: the caller is an ``Interpreter``."""

    # ----------------------------------------------------------------- commands
    def exec_command(
        self, node, src: Source, st: State, extra_env: list[EnvVar]
    ) -> list[tuple[State, bool | None]]:
        prefix: list[EnvVar] = []
        arg_nodes = []
        for i, c in enumerate(node.children):
            fname = node.field_name_for_child(i)
            if c.type == "variable_assignment" and fname != "argument":
                name_node = c.child_by_field_name("name")
                value_node = c.child_by_field_name("value")
                pieces = self.expand_string(value_node, src, st) if value_node is not None else ()
                if name_node is not None:
                    prefix.append(
                        EnvVar(
                            src.text(name_node), text_of(pieces), src.span(c), is_symbolic(pieces)
                        )
                    )
            elif fname in ("name", "argument"):
                arg_nodes.append(first_named_or_self(c) if c.type == "command_name" else c)
        if (
            arg_nodes
            and arg_nodes[0].type == "word"
            and src.text(arg_nodes[0]) in ("echo", "printf")
            and not (len(arg_nodes) > 1 and src.text(arg_nodes[1]) == "-v")
        ):
            if st.capturing and st.capture is not None:
                fields = self.expand_args(arg_nodes, src, st)
                out = (
                    echo_output([f.text for f in fields])
                    if not any(f.symbolic for f in fields)
                    else None
                )
                if out is None:
                    st.capture = None
                else:
                    st.capture.append(out)
            return [(st, True)]  # output only: its arguments change nothing
        fields = self.expand_args(arg_nodes, src, st)
        if not fields:
            return [(st, True)]
        return self.run_fields(fields, prefix + extra_env, src, st, node)

    def run_fields(
        self, fields: list[Field], prefix: list[EnvVar], src: Source, st: State, node
    ) -> list[tuple[State, bool | None]]:
        head = fields[0]
        cmd = head.text if not head.symbolic else ""
        args = fields[1:]
        if cmd in st.funcs:
            return self.call(cmd, args, st, src, node)
        if cmd in (".", "source"):
            return self.source(args, src, st, node)
        if cmd == "eval":
            return self.eval_string(args, src, st, node, subshell=False)
        if cmd in ("cd", "pushd", "popd"):
            track_cd(cmd, args, st, self.main_path)  # the status stays _state_builtin's
        for builtin in (_flow_builtin, _var_builtin, _state_builtin):
            done = builtin(cmd, args, st)
            if done is not None:
                return done
        if st.capturing and cmd == "seq":
            out = seq_output([f.text for f in args]) if not any(f.symbolic for f in args) else None
            if out is None or st.capture is None:
                st.capture = None
            else:
                st.capture.append(out)
            return [(st, True)]
        if st.capturing:
            st.capture = None  # any other command prints what we cannot know
        self.on_command(fields, prefix, src, st, node)
        return [(st, None)]

    def on_command(
        self, fields: list[Field], prefix: list[EnvVar], src: Source, st: State, node
    ) -> None:
        tokens = [f.token() for f in fields]
        if starts_launch(tokens):
            self.record_command(fields, tokens, prefix, src, st, node)
            return
        rest, wrapper_env, _ = strip_wrappers(tokens)
        pip = parse_pip_command(rest)
        if pip is not None:
            st.installs = st.installs + tuple(pip.installs)
            return
        if rest and not rest[0].symbolic and os.path.basename(rest[0].text) in ("bash", "sh"):
            start = len(tokens) - len(rest)
            self.run_child(fields[start + 1 :], prefix + wrapper_env, src, st, node)

    def record_command(
        self, fields: list[Field], tokens, prefix: list[EnvVar], src: Source, st: State, node
    ) -> None:
        """An engine or container command -> its record, assembled into launches
        (``servelint.launches``); a container's own shell command is interpreted here."""
        env = [
            EnvVar(n, text_of(v.scalar_value()), v.span, is_symbolic(v.scalar_value()))
            for n, v in sorted(st.vars.items())
            if v.exported and not v.external
        ]
        names = {e.name for e in prefix}
        record = CommandRecord(
            words=tokens,
            anchor=src.span(node),
            origin=Origin(self.origin_kind, self.main_path, "; ".join(st.labels)),
            env=[e for e in env if e.name not in names] + prefix,
            installs=list(st.installs),
            files={
                name: (None if vf.unknown else vf.lines) for name, vf in st.files.items()
            },
        )
        asm = assemble(record)
        for spec in asm.specs:
            self.config_on_disk(spec, st, src, node, asm.problems)
        for problem in asm.problems:
            self.problem(problem.span, problem.message, problem.kind)
        self.launches.extend(asm.specs)
        if asm.specs:
            self.last_launch_step = self.steps
        if asm.shell and asm.container is not None:
            first = len(self.launches)
            self.run_fields([_field(t) for t in asm.shell], [], src, st, node)
            for spec in self.launches[first:]:
                in_container(spec, asm.container)

    def config_on_disk(self, spec: LaunchSpec, st, src, node, problems: list) -> None:  # noqa: ANN001
        """The option file a launch names and the script did not write, found on disk
        relative to the working directory the script set (``option_paths.disk_file``)."""
        if "config_file" not in spec.context or "config_text" in spec.context:
            return
        hit = config_value(spec.argv, file_flags(spec.engine, spec.entrypoint))
        if hit is None:
            return  # (a symbolic value: ``${VAR:-default}`` is read at its default)
        idx, value = hit
        engine = registry.find(spec.engine)
        reads_itself = bool(engine and engine.config_read_by_parser)
        vf, on_disk = disk_file(self, value, st, src, node, reads_itself)
        if on_disk is not None:
            spec.context["config_from"] = on_disk
            if reads_itself:  # the argv model reads the file by its path; its findings
                spec.argv[idx] = Token(on_disk, value.span)  # go to the lines of its keys
                spans = key_spans(on_disk)
                if spans is not None:
                    spec.context[KEY_SPANS] = spans
        if vf is not None and not vf.unknown:
            provide_config_file(spec, idx, vf.lines, problems)

    # ------------------------------------------------------------ calls/files
    def call(
        self, name: str, args: list[Field], st: State, src: Source, node
    ) -> list[tuple[State, bool | None]]:
        if self.depth >= 16:
            self.problem(src.span(node), f"call depth limit reached at {name!r}", "budget")
            return [(st, None)]
        body, fsrc = st.funcs[name]
        if (
            fsrc.path != self.main_path
            and not self.in_cond
            and not self._may_launch(body, fsrc, st)
        ):
            # a helper that can start no engine nor install anything: only its global
            # assignments matter, and they become unknown
            for var_name in global_assignments(body, fsrc):
                old = st.vars.get(var_name)
                st.vars[var_name] = unknown_var(var_name, bool(old and old.exported))
            return [(st, None)]
        saved = st.positional
        st.positional = tuple(args)
        st.frames = st.frames + ({},)
        self.depth += 1
        saved_cap = self.cap
        if fsrc.path != self.main_path:
            # helper-library functions: decide nothing, join their branches at once
            self.cap = 1
        try:
            if body.type == "subshell":
                inner = fork(st)
                self.exec_block(body.named_children, fsrc, [inner])
                results: list[tuple[State, bool | None]] = [(st, None)]
            else:
                results = self.exec_seq(body.named_children, fsrc, st)
        finally:
            self.depth -= 1
            self.cap = saved_cap
        out: list[tuple[State, bool | None]] = []
        for s, status in results:
            if s.flow == "exit":
                continue
            frame = s.frames[-1] if s.frames else {}
            for var_name, old in frame.items():
                if old is None:
                    s.vars.pop(var_name, None)
                else:
                    s.vars[var_name] = old
            s.frames = s.frames[:-1]
            s.positional = saved
            if s.flow == "return":
                s.flow = ""
                status = s.ret
            out.append((s, status))
        return self._bound_status(out)

    def _may_launch(self, body, src: Source, st: State) -> bool:
        """Whether a helper function can (transitively) launch an engine or install."""
        return self._reaches(body, src, st, [], self._table_of(st.funcs))[0]

    def _table_of(self, funcs: dict) -> frozenset:
        """The content of a function table, as a key (tables are replaced, never changed,
        so the last one asked about is recognised by identity; a frozenset keeps its hash)."""
        last = self._last_table
        if last is not None and last[0] is funcs:
            return last[1]
        content = frozenset(
            (name, fsrc.path, body.start_byte, body.end_byte)
            for name, (body, fsrc) in funcs.items()
        )
        self._last_table = (funcs, content)
        return content

    def _reaches(
        self, body, src: Source, st: State, stack: list, table: frozenset
    ) -> tuple[bool, bool]:
        """-> (may launch, answer rests on a caller still being decided). Such a "no" is
        not cached: a recursive helper must not get a different answer depending on which
        function of its cycle was asked first (set order varies between processes). Answers
        are per function table (a script may define the callees a helper names) and kept
        with the parsed source of the helper: a script read once per matrix entry asks again."""
        key = ("reaches", body.start_byte, table)
        cached = src.memo.get(key)
        if cached is not None:
            return cached, False  # type: ignore[return-value]
        at = (src.path, body.start_byte)
        if at in stack:
            return False, True
        text = src.text(body)
        if relevant_text().search(text) is not None:
            src.memo[key] = True
            return True, False
        stack.append(at)
        open_cycle = False
        try:
            for callee in sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))):
                fn = st.funcs.get(callee)
                if fn is None:
                    continue
                cbody, csrc = fn
                found, pending = self._reaches(cbody, csrc, st, stack, table)
                if found:
                    src.memo[key] = True
                    return True, False
                open_cycle = open_cycle or pending
        finally:
            stack.pop()
        if not open_cycle or not stack:
            src.memo[key] = False
        return False, open_cycle and bool(stack)


_Status = list[tuple[State, "bool | None"]]
_NO_EFFECT = ("echo", "printf", "cd", "pushd", "popd", "local", "let", "wait", "sleep")


def _flow_builtin(cmd: str, args: list[Field], st: State) -> _Status | None:
    """``exit``, ``return``, ``break``, ``continue``: the flow they leave by."""
    if cmd == "exit":
        st.flow = "exit"
        return [(st, None)]
    if cmd == "return":
        st.flow = "return" if st.frames else "exit"
        st.ret = None
        if not args:
            st.ret = True
        elif not args[0].symbolic and args[0].text.isdigit():
            st.ret = int(args[0].text) == 0
        return [(st, st.ret)]
    if cmd in ("break", "continue"):
        st.flow = cmd
        return [(st, None)]
    return None


def _var_builtin(cmd: str, args: list[Field], st: State) -> _Status | None:
    """``read``/``mapfile``/``readarray``/``printf -v``: the variables they set are unknown."""
    if cmd in ("read", "mapfile", "readarray"):
        for f in args:
            if not f.symbolic and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", f.text):
                st.vars[f.text] = unknown_var(f.text)
        return [(st, None)]
    if cmd == "printf" and len(args) > 1 and args[0].text == "-v":
        st.vars[args[1].text] = unknown_var(args[1].text)
        return [(st, True)]
    return None


def _state_builtin(cmd: str, args: list[Field], st: State) -> _Status | None:
    """The builtins whose effect on the state (or status) is known; None for any other."""
    if cmd in ("true", ":", "false"):
        return [(st, cmd != "false")]
    if cmd == "shift":
        n = int(args[0].text) if args and args[0].text.isdigit() else 1
        st.positional = st.positional[n:]
        return [(st, True)]
    if cmd == "set":
        if args and args[0].text == "--":
            st.positional = tuple(args[1:])
        return [(st, True)]
    if cmd in _NO_EFFECT:
        return [(st, True)]
    if cmd in ("[", "test"):
        if any(f.symbolic for f in args):
            return [(st, None)]
        return [(st, simple_test([f.text for f in args if f.text != "]"]))]
    return None
