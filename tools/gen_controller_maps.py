#!/usr/bin/env python3
"""Record how a Kubernetes controller writes its engine container, from the controller's Go.

    python tools/gen_controller_maps.py GIT_DIR --repo OWNER/NAME --name NAME \
        --group G --kind K --types PATH --func-file PATH --func NAME --root VAR=TYPE \
        [--when FIELD=VALUE@PATH:TEXT] [--image-field EXPR=FIELD@PATH:TEXT]

reads, at the repository's HEAD commit (a ``git`` directory: ``fetch`` gives one), the Go
function that builds the server container and the API types it reads, and writes
``src/servelint/data/controller_maps/NAME.json``: the container's ``Command``, its ``Args``
and ``Env`` as the function appends them, each step with the condition that gates it and
its file:line, every Go field named by its JSON key path (from the struct tags) with its
``+kubebuilder:default``. What the reader cannot place (a value computed from something
else than the object) is recorded as ``unknown`` with its Go text: at check time it is a
symbolic word, and a condition on it leaves its words out with a note. Only the statement
forms below are understood; any other statement touching ``args``/``env`` stops the run.
At check time ``sources/kubernetes/controllers.py`` evaluates the map against an object.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent.parent / "src" / "servelint" / "data" / "controller_maps"

_STRUCT = re.compile(r"^type (\w+) struct \{")
_FIELD = re.compile(r"^\s*(\w+)?\s+([\w.\[\]*]+)\s+`json:\"([^\",]*)")
_DEFAULT = re.compile(r"\+kubebuilder:default=(.+)$")
_STRING = re.compile(r'^"((?:[^"\\]|\\.)*)"$|^`([^`]*)`$')


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def parse_types(text: str) -> dict[str, dict[str, tuple[str, str, str | None]]]:
    """struct name -> Go field -> (JSON key, Go type, kubebuilder default)."""
    structs: dict[str, dict[str, tuple[str, str, str | None]]] = {}
    current: dict[str, tuple[str, str, str | None]] | None = None
    default = None
    for line in text.split("\n"):
        m = _STRUCT.match(line)
        if m:
            current = structs.setdefault(m.group(1), {})
            continue
        if current is None:
            continue
        if line.startswith("}"):
            current = None
            continue
        d = _DEFAULT.search(line)
        if d:
            default = d.group(1).strip().strip('"')
            continue
        f = _FIELD.match(line)
        if f:
            go_type = f.group(2).lstrip("*")
            name = f.group(1) or go_type.rpartition(".")[2]  # embedded: the type's name
            current[name] = (f.group(3), go_type, default)
            default = None
        elif not line.strip().startswith("//"):
            default = None
    return structs


class Extractor:
    """The steps of one Go function that build ``args``, ``env`` and the command."""

    def __init__(self, types: dict, root_var: str, root_type: str, path: str) -> None:
        self.types, self.root_var, self.root_type, self.path = types, root_var, root_type, path
        self.locals: dict[str, list[dict]] = {}
        self.args: list[dict] = []
        self.env: list[dict] = []
        self.command: dict | None = None
        self.image: dict | None = None
        self.derived: dict[str, dict] = {}  # Go expression -> parts of a field (--url-parts)

    def field(self, expr: str) -> dict | None:
        """``root.Spec.X.Y`` -> {"field": "spec.x.y", "type", "default"} (None: not one)."""
        parts = expr.split(".")
        if parts[0] != self.root_var or len(parts) < 2:
            return None
        struct, keys, go_type, default = self.root_type, [], "", None
        for name in parts[1:]:
            fields = self.types.get(struct, {})
            if name not in fields and name in ("Name", "Namespace") and "ObjectMeta" in fields:
                keys += ["metadata", name.lower()]
                go_type, default = "string", None
                continue
            if name not in fields:
                return None
            key, go_type, default = fields[name]
            keys.append(key)
            struct = go_type.lstrip("[]").rpartition(".")[2]
        return {"field": ".".join(keys), "type": go_type, "default": default}

    def expr(self, text: str) -> dict:
        text = text.strip().rstrip(",").strip()
        m = _STRING.match(text)
        if m:
            return {"text": json.loads(f'"{m.group(1)}"') if m.group(1) is not None
                    else m.group(2)}
        if re.fullmatch(r"-?\d+", text):
            return {"int": int(text)}
        if text == "nil":
            return {"nil": True}
        if text.endswith("..."):
            f = self.field(text[:-3])
            return {"spread": f["field"]} if f else {"unknown": text}
        m = re.fullmatch(r'fmt\.Sprintf\("%[ds]", (.+)\)', text)
        if m:
            return self.expr(m.group(1))
        if " + " in text:
            return {"concat": [self.expr(p) for p in text.split(" + ")]}
        if text in self.locals:
            return {"local": text}
        base, _, part = text.rpartition(".")
        if base in self.derived and part in self.derived[base]["parts"]:
            return {"derived": base, "part": part}
        f = self.field(text)
        return f if f else {"unknown": text}

    def cond(self, text: str) -> dict:
        text = text.strip()
        if " && " in text:
            return {"all": [self.cond(p) for p in text.split(" && ")]}
        if " || " in text:
            return {"any": [self.cond(p) for p in text.split(" || ")]}
        if text.startswith("!"):
            return {"not": self.cond(text[1:])}
        m = re.fullmatch(r"(\S+) (==|!=|>) (.+)", text)
        if m:
            left, op, right = m.groups()
            value = self.expr(right)
            return {"left": self.expr(left), "op": op, "right": value}
        return {"left": self.expr(text), "op": "true"}

    def run(self, lines: list[str], first: int) -> None:
        gates: list[dict | None] = []  # one per open block: its condition (None: not an if)
        chain: list[dict] = []  # the conditions of the if/else-if chain just closed
        i = 0
        while i < len(lines):
            line, number = lines[i].strip(), first + i
            stmt, i = self._statement(lines, i)
            when = [g for g in gates if g is not None]
            if re.match(r"^\} else if (.+) \{$", line):
                c = self.cond(line[len("} else if "):-2])
                gates[-1] = {"all": [*({"not": p} for p in chain), c]}
                chain.append(c)
                continue
            if line == "} else {":
                gates[-1] = {"all": [{"not": p} for p in chain]}
                continue
            m = re.match(r"^if (.+) \{$", line)
            if m:
                c = self.cond(m.group(1))
                gates.append(c)
                chain = [c]
                continue
            self._step(stmt, number, {"all": when} if when else None)
            opened = stmt.count("{") - stmt.count("}")
            for _ in range(opened):
                gates.append(None)
            for _ in range(-opened):
                if gates:
                    gates.pop()

    def _statement(self, lines: list[str], i: int) -> tuple[str, int]:
        """One statement (an ``append(`` call spans lines until its parenthesis closes)."""
        text = lines[i].strip()
        j = i + 1
        if re.match(r"^(args|env) = append\(", text) or re.match(r"^args := \[\]string\{$", text):
            closer = ")" if "append(" in text else "}"
            depth = text.count("(" if closer == ")" else "{") - text.count(closer)
            while depth > 0 and j < len(lines):
                part = lines[j].strip()
                depth += part.count("(" if closer == ")" else "{") - part.count(closer)
                text += " " + part
                j += 1
        return text, j

    def _step(self, stmt: str, line: int, when: dict | None) -> None:
        m = re.match(r"^args := \[\]string\{(.*)\}$", stmt)
        if m:
            self.args.append({"line": line, "when": when, "words": self._list(m.group(1))})
            return
        m = re.match(r"^args = append\(\s*args,(.*)\)$", stmt)
        if m:
            self.args.append({"line": line, "when": when, "words": self._list(m.group(1))})
            return
        m = re.match(r"^env = append\(\s*env,(.*)\)$", stmt)
        if m:
            for name, value in re.findall(
                    r'Name:\s*("[^"]*"|\w+(?:\.\w+)*),\s*(Value:\s*[^,}]+|ValueFrom:)', m.group(1)):
                self.env.append({"line": line, "when": when, **self._env(name, value)})
            return
        m = re.match(r"^(\w+) :?= (.+)$", stmt)
        if m and m.group(1) not in ("args", "env") and not m.group(2).endswith("{"):
            value = {"text": m.group(2)} if m.group(2) in ("true", "false") \
                else self.expr(m.group(2))
            self.locals.setdefault(m.group(1), []).append(
                {"line": line, "when": when, "value": value})
            return
        if re.fullmatch(r"(args|env) := \[\](string|corev1\.EnvVar)\{\}", stmt):
            return  # an empty start
        m = re.match(r"^Command:\s*\[\]string\{(.*)\},$", stmt)
        if m:
            self.command = {"line": line, "words": self._list(m.group(1))}
            return
        if re.match(r"^(args|env)\b", stmt) and "range" not in stmt:
            raise SystemExit(f"{self.path}:{line}: statement not understood: {stmt}")

    def _env(self, name: str, value: str) -> dict:
        if value.startswith("ValueFrom"):
            return {"name": self.expr(name), "value": {"unknown": "valueFrom"}}
        value = value[len("Value:"):].strip()
        m = re.fullmatch(r"(.+)\[(\w+)\]", value)
        if m:  # Value: spec.env[key], in a loop over the map's keys
            f = self.field(m.group(1))
            return {"from_map": f["field"] if f else None}
        if name.endswith(".Name"):  # Name: e.Name, in a loop over a list of name/value
            return {"from_list": None}
        return {"name": self.expr(name), "value": self.expr(value)}

    def _list(self, body: str) -> list[dict]:
        items, depth, cur = [], 0, ""
        for ch in body:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            if ch == "," and depth == 0:
                items.append(cur)
                cur = ""
            else:
                cur += ch
        if cur.strip():
            items.append(cur)
        return [self.expr(x) for x in items if x.strip()]


def _loops(extractor: Extractor, lines: list[str], first: int) -> None:
    """Name the list or map each ``from_list``/``from_map`` env step ranges over."""
    for step in extractor.env:
        if "from_list" in step:
            for back in range(step["line"] - first, -1, -1):
                m = re.match(r"^\s*for _, \w+ := range (\S+) \{", lines[back])
                if m:
                    f = extractor.field(m.group(1))
                    step["from_list"] = f["field"] if f else None
                    break


def _locate(text: str, needle: str, path: str) -> int:
    for n, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return n
    raise SystemExit(f"{path}: {needle!r} not found")


def _url_parts(git_dir: str, spec: str) -> tuple[str, dict]:
    """EXPR=FIELD@PATH:REGEX_VAR -> the Go regexp the controller parses FIELD with (copied
    from PATH) and which submatch each part of EXPR is (from ``a, b := matches[1], …``)."""
    expr, rest = spec.split("=", 1)
    field, where = rest.split("@", 1)
    path, var = where.split(":", 1)
    text = _git(git_dir, "show", f"HEAD:{path}")
    at = _locate(text, f"var {var} = regexp.MustCompile(", path)
    regex = re.search(r"MustCompile\(`([^`]*)`\)", text.split("\n")[at - 1]).group(1)
    m = re.search(r"(\w+), (\w+) := matches\[(\d)\], matches\[(\d)\]", text)
    parts = {m.group(1): int(m.group(3)), m.group(2): int(m.group(4))}
    if re.search(r"original:\s+urlStr", text):
        parts["original"] = 0
    return expr, {"field": field, "regex": regex, "parts": parts, "source": f"{path}:{at}"}


def _install_images(git_dir: str, spec: str) -> dict:
    """The chart's default images by name and each resource profile's image name."""
    path, keys = spec.split(":", 1)
    images_key, profiles_key = keys.split("=")
    text = _git(git_dir, "show", f"HEAD:{path}")
    values = yaml.safe_load(text)
    images = values
    for key in images_key.split("."):
        images = images[key]
    profiles = {name: p.get("imageName") for name, p in values[profiles_key].items()
                if isinstance(p, dict)}
    chart = yaml.safe_load(_git(git_dir, "show", f"HEAD:{Path(path).parent}/Chart.yaml"))
    return {"images": images, "profiles": profiles, "chart_version": str(chart["version"]),
            "source": f"{path}:{_locate(text, images_key.split('.')[-1] + ':', path)}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir")
    ap.add_argument("--repo", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--kind", required=True)
    ap.add_argument("--types", required=True, help="the API types files, comma-separated")
    ap.add_argument("--func-file", required=True)
    ap.add_argument("--func", required=True)
    ap.add_argument("--root", required=True, help="VAR=TYPE: the object's variable")
    ap.add_argument("--when", default="", help="FIELD=VALUE@PATH:TEXT: the object selects "
                    "this function when FIELD is VALUE, as PATH's line holding TEXT says")
    ap.add_argument("--image-field", default="", help="EXPR=FIELD@PATH:TEXT: the Go "
                    "expression the image comes from is FIELD when set, as PATH's line "
                    "holding TEXT says; else the install's (unknown)")
    ap.add_argument("--install-images", default="", help="PATH:KEY.PATH=PROFILES.KEY: the "
                    "images the controller's own chart configures (by image name), and the "
                    "resource profiles that name them (imageName), recorded as the install's "
                    "defaults at this commit")
    ap.add_argument("--url-parts", default="", help="EXPR=FIELD@PATH:REGEX_VAR: EXPR's parts "
                    "are the submatches of the Go regexp REGEX_VAR (in PATH) on FIELD")
    ap.add_argument("--profile-field", default="spec.resourceProfile",
                    help="the object's field naming its resource profile (NAME:COUNT)")
    args = ap.parse_args()
    commit = _git(args.git_dir, "rev-parse", "HEAD").strip()
    types: dict = {}
    for path in args.types.split(","):
        types.update(parse_types(_git(args.git_dir, "show", f"HEAD:{path}")))
    code = _git(args.git_dir, "show", f"HEAD:{args.func_file}")
    lines = code.split("\n")
    start = next(i for i, line in enumerate(lines) if re.match(rf"^func .*\b{args.func}\(", line))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "}")
    root_var, root_type = args.root.split("=")
    ex = Extractor(types, root_var, root_type, args.func_file)
    if args.url_parts:
        expr, derived = _url_parts(args.git_dir, args.url_parts)
        ex.derived[expr] = derived
    body = lines[start + 1:end]
    ex.run(body, start + 2)
    _loops(ex, lines, 1)
    image_line = next(i for i in range(start, end) if re.match(r"^\s*Image:\s", lines[i]))
    image_expr = lines[image_line].split(":", 1)[1].strip().rstrip(",")
    image = {"line": image_line + 1, "value": ex.expr(image_expr)}
    if args.image_field:
        expr, rest = args.image_field.split("=", 1)
        field, where = rest.split("@", 1)
        path, needle = where.split(":", 1)
        if expr == image_expr:
            at = _locate(_git(args.git_dir, "show", f"HEAD:{path}"), needle, path)
            image["value"] = {"field": field, "else": "the image its install configures",
                              "source": f"{path}:{at}"}
            if args.install_images:
                image["value"]["install"] = _install_images(args.git_dir, args.install_images)
                image["value"]["install"]["profile_field"] = args.profile_field
    record = {
        "name": args.name, "repo": args.repo, "commit": commit, "group": args.group,
        "kind": args.kind, "source": f"{args.func_file}:{start + 1}-{end + 1}",
        "types": args.types, "command": ex.command, "image": image, "args": ex.args,
        "env": ex.env, "locals": ex.locals, "derived": ex.derived,
    }
    if args.when:
        field, rest = args.when.split("=", 1)
        value, where = rest.split("@", 1)
        path, needle = where.split(":", 1)
        at = _locate(_git(args.git_dir, "show", f"HEAD:{path}"), needle, path)
        record["when"] = {"field": field, "value": value, "source": f"{path}:{at}"}
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"{args.name}.json"
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {args.repo}@{commit[:12]} {record['source']}: {len(ex.args)} arg steps, "
          f"{len(ex.env)} env steps")


if __name__ == "__main__":
    main()
