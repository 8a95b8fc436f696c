#!/usr/bin/env python
"""Run argv lists through the REAL `vllm` CLI front half and report verdicts.

Run INSIDE an oracle venv (see build_env.sh):

    /tmp/oracle-venvs/vllm-0.27.1/bin/python oracle/check_argv.py CASES.json \
        [--deep] [--out RESULT.json] [--isolation fork|none]
    /tmp/oracle-venvs/vllm-0.27.1/bin/python oracle/check_argv.py \
        --one 'serve m --attention-backend NOPE' [--deep]

CASES.json: a JSON list whose items are either argv lists (the tokens after
`vllm`, e.g. ["serve", "m", "--tensor_parallel_size", "2"]) or objects
{"id": "...", "argv": [...], "env": {"VLLM_X": "1"}, "fake_model": "mixtral"}.
Use "-" to read stdin.

For every case the same steps run, in the order `vllm serve` runs them
(vllm/entrypoints/cli/main.py -> ServeSubcommand -> api_server), and the
first failing step is the verdict:

  main      `--omni` in argv delegates to vllm-omni (absent -> exit 1)
  parse     FlexibleArgumentParser.parse_args (argparse errors -> exit 2;
            other exceptions raised while parsing are a crash -> exit 1)
  validate  ServeSubcommand.validate -> validate_parsed_serve_args
  serve_cmd ServeSubcommand.cmd with run_server / run_headless /
            run_multi_api_server / run_dp_supervisor replaced by recorders
            (so only its own argument checks run: DP load-balancing mode,
            --headless vs --api-server-count, ...)
  api_args  api_server.validate_api_server_args (tool / reasoning parser
            names), which setup_server() runs before binding the socket
  engine_args  AsyncEngineArgs.from_cli_args(args) (dataclass __post_init__)
  engine_config (only with --deep) engine_args.create_engine_config() with
            the model replaced by a tiny local fake model directory (no
            download, no weights, no GPU); the platform is vLLM's
            CpuPlatform, so failures here may be CPU-platform or fake-model
            artefacts: see `raised_at` and judge.
  renderer  (only with --deep) what AsyncLLM.__init__ builds next in the
            API-server process, before the GPU engine core starts:
            renderer_from_config(vllm_config) (older releases: the
            tokenizer from the model config). Unknown --tokenizer-mode
            values fail here.

Nothing past that (engine core, workers, kernels, weights, the FastAPI app)
runs. The case's "env" is applied while it runs; unknown VLLM_* names and
invalid values are reported under "environ" (informational).

Output: JSON with one record per case: verdict ("accepted" / "rejected"),
rejected_at (stage), exit_code the real CLI would give at that point,
message, the parsed namespace (stringified) for accepted parses.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import json
import os
import sys
import time
import traceback
from pathlib import Path

T_PROCESS_START = time.perf_counter()
_REAL_ARGV = sys.argv[:]
# The serve parser is built once; vLLM reads sys.argv while building it
# (--help => help texts; `serve --help` => no --model option). Build it the
# way a plain `vllm serve ...` run (no --help) sees it.
sys.argv = ["vllm", "serve"]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import oracle_common  # noqa: E402

HERE = Path(__file__).resolve().parent
FAKE_MODELS = HERE / "fake_models"


def _tb_origin(exc: BaseException) -> str | None:
    """file:line:function of the innermost vLLM frame that raised."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if "/vllm/" in fn or "/pydantic" in fn:
            if "/vllm/" in fn:
                last = f"{fn.split('/vllm/', 1)[1]}:{tb.tb_lineno}:{tb.tb_frame.f_code.co_name}"
        tb = tb.tb_next
    return f"vllm/{last}" if last else None


def _short(msg: str, limit: int = 1500) -> str:
    msg = msg.strip()
    return msg if len(msg) <= limit else msg[:limit] + " ...[cut]"


class _Recorder:
    def __init__(self):
        self.path = None

    def sync(self, name):
        def f(args, *a, **k):
            self.path = name
        return f

    def coro(self, name):
        async def f(args, *a, **k):
            self.path = name
        return f


@contextlib.contextmanager
def _env(extra: dict | None):
    if not extra:
        yield
        return
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update({k: str(v) for k, v in extra.items()})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _namespace_dict(ns) -> dict:
    out = {}
    for k, v in sorted(vars(ns).items()):
        if k == "dispatch_function":
            continue
        out[k] = oracle_common.jsonable(v)
    return out


def _tokenizer_loader():
    """The call AsyncLLM.__init__ makes to get a renderer / tokenizer, by
    release: renderer_from_config (>=0.2x), else the tokenizer helpers."""
    try:
        from vllm.renderers import renderer_from_config
        return "vllm.renderers.renderer_from_config", renderer_from_config
    except ImportError:
        pass
    for mod, name in (
        ("vllm.tokenizers", "cached_tokenizer_from_config"),
        ("vllm.transformers_utils.tokenizer", "cached_tokenizer_from_config"),
    ):
        try:
            m = __import__(mod, fromlist=[name])
            f = getattr(m, name)
            return f"{mod}.{name}", (lambda vc, f=f: f(vc.model_config))
        except (ImportError, AttributeError):
            continue
    try:
        from vllm.transformers_utils.tokenizer_group import init_tokenizer_from_configs

        def f(vc):
            return init_tokenizer_from_configs(
                model_config=vc.model_config, scheduler_config=vc.scheduler_config,
                lora_config=vc.lora_config)
        return "init_tokenizer_from_configs", f
    except ImportError:
        pass
    from vllm.transformers_utils.tokenizer import get_tokenizer

    def g(vc):
        mc = vc.model_config
        return get_tokenizer(mc.tokenizer, tokenizer_mode=mc.tokenizer_mode,
                             trust_remote_code=mc.trust_remote_code,
                             revision=mc.tokenizer_revision)
    return "vllm.transformers_utils.tokenizer.get_tokenizer", g


def _fake_model_for(argv: list[str], name: str | None = None) -> Path:
    """Fake model dir: a name under fake_models/ or a path. Default: llama."""
    if name:
        p = Path(name)
        return p if p.is_dir() else FAKE_MODELS / name
    return FAKE_MODELS / "llama"


def check_one(parser, argv: list[str], deep: bool = False, env: dict | None = None,
              raise_import_errors: bool = False, include_namespace: bool = True,
              fake_model: str | None = None) -> dict:
    # vLLM reads sys.argv in places after parsing (e.g. "--omni",
    # "--numa-bind"); make it what the real process would see.
    saved_argv = sys.argv
    sys.argv = ["vllm", *argv]
    try:
        return _check_one(parser, argv, deep, env, raise_import_errors,
                          include_namespace, fake_model)
    finally:
        sys.argv = saved_argv


def _check_one(parser, argv, deep, env, raise_import_errors, include_namespace,
               fake_model) -> dict:
    FlexibleArgumentParser = oracle_common.flexible_parser_cls()

    rec: dict = {"argv": argv, "stages": {}, "verdict": None,
                 "rejected_at": None, "exit_code": None, "message": None}
    t0 = time.perf_counter()

    def fail(stage, exc=None, msg=None, code=1, kind=None):
        if isinstance(exc, ImportError):
            kind = ("missing-optional-package: the real server fails the same "
                    "way unless this package is installed next to vLLM "
                    f"(stage {stage})")
        rec["stages"][stage] = {
            "ok": False,
            "exception": type(exc).__name__ if exc is not None else None,
            "message": _short(msg if msg is not None else str(exc)),
            "raised_at": _tb_origin(exc) if exc is not None else None,
            "kind": kind,
        }
        rec["verdict"] = "rejected"
        rec["rejected_at"] = stage
        rec["exit_code"] = code
        rec["message"] = rec["stages"][stage]["message"]

    def maybe_reraise(e):
        if raise_import_errors and isinstance(e, ModuleNotFoundError):
            raise e

    serve_mod = sys.modules.get("vllm.entrypoints.cli.serve")
    cmd = getattr(parser._subparsers._group_actions[0].choices.get("serve"),
                  "_oracle_cmd", None)

    with _env(env):
        # -- main: `--omni` delegation (vllm/entrypoints/cli/main.py)
        main_mod_src = ""
        try:
            import vllm.entrypoints.cli.main as climain
            main_mod_src = inspect.getsource(climain)
        except Exception:
            pass
        if '"--omni" in sys.argv' in main_mod_src and "--omni" in argv:
            try:
                import vllm_omni  # noqa: F401
                rec["stages"]["main"] = {"ok": True, "note": "vllm-omni installed: "
                                         "real CLI would hand over to it"}
            except ImportError:
                fail("main", msg="--omni flag requires a valid instance of vllm-omni "
                     "to be installed.", code=1, kind="cli-main")
                rec["seconds"] = round(time.perf_counter() - t0, 3)
                return rec

        # -- parse
        err = io.StringIO()
        out = io.StringIO()
        ns = None
        FlexibleArgumentParser._search_keyword = None
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                ns = parser.parse_args(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if code == 0:
                rec["stages"]["parse"] = {"ok": True, "exit_code": 0,
                                          "note": "help/version printed; exits 0",
                                          "stdout_head": out.getvalue()[:300]}
                rec["verdict"] = "exited-0"
                rec["exit_code"] = 0
                rec["seconds"] = round(time.perf_counter() - t0, 3)
                return rec
            msg = err.getvalue().strip().splitlines()
            # argparse prints usage + "prog: error: ..." (+ detail lines for
            # pydantic errors); keep from the error line on
            idx = next((i for i, line in enumerate(msg) if ": error:" in line), None)
            emsg = "\n".join(msg[idx:]) if idx is not None else "\n".join(msg[-3:])
            fail("parse", msg=emsg, code=code, kind="argparse")
        except Exception as e:
            maybe_reraise(e)
            fail("parse", e, f"{type(e).__name__}: {e}", code=1,
                 kind="exception-during-parse (real CLI: traceback, exit 1)")
        finally:
            FlexibleArgumentParser._search_keyword = None
        if ns is None:
            rec["seconds"] = round(time.perf_counter() - t0, 3)
            return rec
        rec["stages"]["parse"] = {"ok": True}
        if include_namespace:
            rec["namespace"] = _namespace_dict(ns)
        if getattr(ns, "subparser", None) != "serve":
            rec["verdict"] = "accepted"
            rec["note"] = "not a serve command; only parsing was checked"
            rec["seconds"] = round(time.perf_counter() - t0, 3)
            return rec

        # -- validate (ServeSubcommand.validate)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                if cmd is not None:
                    cmd.validate(ns)
                else:
                    from vllm.entrypoints.openai.cli_args import validate_parsed_serve_args
                    validate_parsed_serve_args(ns)
            rec["stages"]["validate"] = {"ok": True}
        except Exception as e:
            maybe_reraise(e)
            fail("validate", e, f"{type(e).__name__}: {e}", kind="post-parse")
            rec["seconds"] = round(time.perf_counter() - t0, 3)
            return rec

        # -- serve_cmd: ServeSubcommand.cmd with the launchers replaced
        path = None
        if cmd is not None and serve_mod is not None:
            if getattr(ns, "grpc", False):
                rec["stages"]["serve_cmd"] = {"ok": True, "path": "grpc",
                                              "note": "gRPC server path not followed"}
                path = "grpc"
            else:
                r = _Recorder()
                patches = {}
                for name in ("run_server",):
                    if hasattr(serve_mod, name):
                        patches[name] = r.coro(name)
                for name in ("run_headless", "run_multi_api_server", "run_dp_supervisor"):
                    if hasattr(serve_mod, name):
                        patches[name] = r.sync(name)
                saved = {k: getattr(serve_mod, k) for k in patches}
                try:
                    for k, v in patches.items():
                        setattr(serve_mod, k, v)
                    with contextlib.redirect_stderr(io.StringIO()):
                        type(cmd).cmd(ns)
                    path = r.path
                    rec["stages"]["serve_cmd"] = {"ok": True, "path": path}
                except Exception as e:
                    maybe_reraise(e)
                    fail("serve_cmd", e, f"{type(e).__name__}: {e}", kind="post-parse")
                    rec["seconds"] = round(time.perf_counter() - t0, 3)
                    return rec
                finally:
                    for k, v in saved.items():
                        setattr(serve_mod, k, v)
        else:
            if getattr(ns, "model_tag", None) is not None:
                ns.model = ns.model_tag

        # -- api_args: validate_api_server_args (part of setup_server)
        if path in (None, "run_server", "run_multi_api_server"):
            try:
                import vllm.entrypoints.openai.api_server as api
                vfn = getattr(api, "validate_api_server_args", None)
                if vfn is not None:
                    with contextlib.redirect_stderr(io.StringIO()):
                        vfn(ns)
                    rec["stages"]["api_args"] = {"ok": True}
            except Exception as e:
                maybe_reraise(e)
                fail("api_args", e, f"{type(e).__name__}: {e}", kind="post-parse")
                rec["seconds"] = round(time.perf_counter() - t0, 3)
                return rec

        # -- environ (informational): what vLLM would say about the case's
        # VLLM_* variables. Unknown names only warn, unless
        # --fail-on-environ-validation (then create_engine_config raises);
        # a bad value raises wherever vLLM first reads that variable.
        if env:
            info = {"unknown": [], "invalid": {}}
            try:
                import vllm.envs as envs
                known = getattr(envs, "environment_variables", {})
                for k in env:
                    if k.startswith("VLLM_") and k not in known:
                        info["unknown"].append(k)
                    elif k in known:
                        try:
                            known[k]()
                        except Exception as e:  # noqa: BLE001
                            info["invalid"][k] = f"{type(e).__name__}: {e}"
            except Exception as e:  # noqa: BLE001
                info["error"] = repr(e)
            rec["environ"] = info

        # -- engine_args
        try:
            from vllm.engine.arg_utils import AsyncEngineArgs
            with contextlib.redirect_stderr(io.StringIO()):
                engine_args = AsyncEngineArgs.from_cli_args(ns)
            rec["stages"]["engine_args"] = {"ok": True}
        except Exception as e:
            maybe_reraise(e)
            fail("engine_args", e, f"{type(e).__name__}: {e}", kind="post-parse")
            rec["seconds"] = round(time.perf_counter() - t0, 3)
            return rec

        # -- engine_config (deep)
        if deep:
            fm = _fake_model_for(argv, fake_model)
            orig_model = engine_args.model
            engine_args.model = str(fm)
            if engine_args.tokenizer in (None, orig_model):
                engine_args.tokenizer = None
            if getattr(engine_args, "served_model_name", None) is None:
                engine_args.served_model_name = orig_model
            try:
                from vllm.usage.usage_lib import UsageContext
                errbuf = io.StringIO()
                with contextlib.redirect_stderr(errbuf):
                    vc = engine_args.create_engine_config(
                        usage_context=UsageContext.OPENAI_API_SERVER)
                rec["stages"]["engine_config"] = {
                    "ok": True, "fake_model": fm.name,
                    "attention_backend": oracle_common.jsonable(
                        getattr(getattr(vc, "attention_config", None), "backend", None)),
                }
            except Exception as e:
                maybe_reraise(e)
                fail("engine_config", e, f"{type(e).__name__}: {e}",
                     kind="engine-config (fake model, CpuPlatform: judge raised_at)")
                rec["stages"]["engine_config"]["fake_model"] = fm.name
                rec["stages"]["engine_config"]["traceback_tail"] = _short(
                    "".join(traceback.format_exception(e)[-6:]), 2500)
                rec["seconds"] = round(time.perf_counter() - t0, 3)
                return rec

            # -- renderer: what AsyncLLM.__init__ builds in the API-server
            # process right after create_engine_config and before it starts
            # the engine core (GPU): renderer/tokenizer from the config.
            try:
                how, fn = _tokenizer_loader()
                with contextlib.redirect_stderr(io.StringIO()):
                    fn(vc)
                rec["stages"]["renderer"] = {"ok": True, "via": how}
            except Exception as e:
                maybe_reraise(e)
                fail("renderer", e, f"{type(e).__name__}: {e}",
                     kind="renderer/tokenizer load (fake tokenizer: judge raised_at)")
                rec["stages"]["renderer"]["via"] = how if "how" in dir() else None
                rec["stages"]["renderer"]["traceback_tail"] = _short(
                    "".join(traceback.format_exception(e)[-6:]), 2500)
                rec["seconds"] = round(time.perf_counter() - t0, 3)
                return rec

    rec["verdict"] = "accepted"
    rec["exit_code"] = None
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


def _run_forked(parser, argv, kw) -> dict:
    """check_one() in a forked child; the result comes back through a pipe."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(rfd)
        code = 0
        try:
            r = check_one(parser, argv, **kw)
            data = json.dumps(r, default=str).encode()
        except BaseException as e:  # noqa: BLE001
            data = json.dumps({"argv": argv, "verdict": "oracle-error",
                               "message": f"{type(e).__name__}: {e}",
                               "stages": {}, "rejected_at": None,
                               "exit_code": None}).encode()
            code = 1
        with os.fdopen(wfd, "wb") as w:
            w.write(data)
        os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as r:
        data = r.read()
    os.waitpid(pid, 0)
    try:
        return json.loads(data)
    except Exception:
        return {"argv": argv, "verdict": "oracle-error", "stages": {},
                "rejected_at": None, "exit_code": None,
                "message": "child produced no result"}


def load_cases(src: str) -> list[dict]:
    data = json.load(sys.stdin if src == "-" else open(src))
    cases = []
    for i, c in enumerate(data):
        if isinstance(c, list):
            cases.append({"id": str(i), "argv": c})
        else:
            c = dict(c)
            c.setdefault("id", str(i))
            cases.append(c)
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("cases", nargs="?", help="JSON file of argv lists (or '-')")
    ap.add_argument("--one", default=None, metavar="'serve m --flag v'",
                    help="check one shell-quoted command line (after `vllm`) "
                    "instead of a cases file")
    ap.add_argument("--deep", action="store_true",
                    help="also run create_engine_config on a fake local model")
    ap.add_argument("--fake-model", default=None,
                    help="fake model for --deep: name under fake_models/ "
                    "(llama, mixtral) or a directory; a case may set its own "
                    "with \"fake_model\" (default llama)")
    ap.add_argument("--out", default=None, help="write JSON here (default stdout)")
    ap.add_argument("--no-namespace", action="store_true")
    ap.add_argument("--isolation", default="fork", choices=["fork", "none"],
                    help="fork (default): each case runs in a forked child of "
                    "the process that built the parser, so no state leaks "
                    "between cases (vLLM mutates parser-default config "
                    "objects and module globals after parsing); none: all "
                    "cases in one process (faster, may leak state)")
    a = ap.parse_args(_REAL_ARGV[1:])

    if a.one is not None:
        import shlex
        cases = [{"id": "one", "argv": shlex.split(a.one)}]
    elif a.cases:
        cases = load_cases(a.cases)
    else:
        ap.error("give a cases file or --one")
    t_build0 = time.perf_counter()
    with oracle_common.capture_output():
        top, serve, build_mode, build_s, fb = oracle_common.build_cli_parser()
    if a.deep and a.isolation == "fork" and len(cases) > 1:
        # Warm-up (only pays off for more than one case): run the deep stages once in the parent on a SECOND,
        # throw-away parser (its default config objects are separate
        # copies, vLLM deep-copies cached kwargs per build), so that every
        # forked child inherits imported modules and vLLM's deterministic
        # caches (model inspection, HF config, tokenizer) instead of redoing
        # them (0.2-1.5 s per case). Parser defaults used for the real cases
        # are untouched.
        fakes = {c.get("fake_model", a.fake_model) for c in cases}
        with oracle_common.capture_output():
            try:
                warm_top, *_ = oracle_common.build_cli_parser()
                for fm in fakes:
                    check_one(warm_top, ["serve", "m"], deep=True, fake_model=fm,
                              include_namespace=False)
            except Exception:
                pass
    t_built = time.perf_counter()
    results = []
    for c in cases:
        kw = dict(deep=a.deep, env=c.get("env"),
                  include_namespace=not a.no_namespace,
                  fake_model=c.get("fake_model", a.fake_model))
        if a.isolation == "fork":
            r = _run_forked(top, c["argv"], kw)
        else:
            r = check_one(top, c["argv"], **kw)
        r["id"] = c["id"]
        if c.get("env"):
            r["env"] = c["env"]
        if c.get("fake_model"):
            r["fake_model"] = c["fake_model"]
        results.append(r)
    t_end = time.perf_counter()
    report = {
        "vllm_version": oracle_common.vllm_version(),
        "platform_used": getattr(top, "_oracle_platform", None),
        "build_mode": build_mode,
        "fallback_error": fb,
        "timing": {
            "python_start_to_import_start_s": round(t_build0 - T_PROCESS_START, 3),
            "import_and_build_parser_s": round(t_built - t_build0, 3),
            "checks_s": round(t_end - t_built, 3),
            "in_process_total_s": round(t_end - T_PROCESS_START, 3),
        },
        "deep": a.deep,
        "results": results,
    }
    text = json.dumps(report, indent=1, default=str)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(text + "\n")
        for r in results:
            print(f"{r['verdict']:9s} {str(r['rejected_at'] or ''):13s} "
                  f"{' '.join(r['argv'])[:90]}"
                  + (f"  :: {' | '.join(x.strip() for x in r['message'].splitlines() if x.strip())[:220]}"
                     if r["message"] else ""))
        print(f"[timing] {report['timing']}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
