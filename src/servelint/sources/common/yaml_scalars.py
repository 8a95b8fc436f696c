"""How a plain or tagged YAML scalar resolves: the YAML 1.2 core rules the recipes site's
loader (js-yaml) uses, and what PyYAML's YAML 1.1 rules make of the same text."""

from __future__ import annotations

import base64
import datetime as _dt
import math
import re

import yaml

STR_TAG = "tag:yaml.org,2002:str"


_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT_DEC = re.compile(r"[-+]?[0-9]+$")
_INT_OCT = re.compile(r"0o[0-7]+$")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)$")
_NAN = re.compile(r"\.(nan|NaN|NAN)$")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.[0-9]*)?(?:[ \t]*(Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?$"
)
# YAML 1.1 spellings that YAML 1.2 (the site) reads as strings.
_YAML11_ONLY = re.compile(
    r"(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|0[0-7]+|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?"
    r"|[-+]?[0-9][0-9_]*_[0-9_]*)$"
)


_NOT_A_NUMBER = object()  # (a sentinel: the text is no number)


def resolve_plain(text: str) -> object:
    """A plain (unquoted) scalar under the YAML 1.2 core schema plus timestamps (js-yaml)."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    number = _number(text)
    if number is not _NOT_A_NUMBER:
        return number
    if _DATE.match(text):
        return _valid_date(text)
    m = _TIMESTAMP.match(text)
    if m:
        day = _valid_date(f"{int(m[1]):04d}-{int(m[2]):02d}-{int(m[3]):02d}")
        return day if isinstance(day, str) and _DATE.match(day) else text
    return text


def _number(text: str) -> object:
    if _INT_DEC.match(text):
        return int(text)
    if _INT_OCT.match(text):
        return int(text[2:], 8)
    if _INT_HEX.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text) and text not in {".", "+.", "-."}:
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return _NOT_A_NUMBER


def _valid_date(text: str) -> str:
    try:
        return _dt.date.fromisoformat(text).isoformat()
    except ValueError:
        return text


def differs_in_yaml11(text: str) -> bool:
    """True when YAML 1.1 (PyYAML) would read this plain scalar differently than the site."""
    return bool(_YAML11_ONLY.match(text))


def tagged_scalar(node: yaml.ScalarNode) -> object:
    tag = node.tag or ""
    text = node.value
    if tag == STR_TAG or tag == "!" or not tag.startswith("tag:yaml.org,2002:"):
        return text
    kind = tag.rsplit(":", 1)[-1]
    resolved = resolve_plain(text)
    if kind == "null":
        return None
    if kind == "bool":
        return resolved if isinstance(resolved, bool) else bool(text)
    if kind == "int":
        return (
            resolved if isinstance(resolved, int) and not isinstance(resolved, bool) else int(text)
        )
    if kind == "float":
        return float(resolved) if isinstance(resolved, (int, float)) else float(text)
    if kind == "timestamp":
        return resolved
    if kind == "binary":
        return base64.b64decode(text).decode("latin-1")
    return text


def plain_scalar(node: yaml.ScalarNode) -> tuple[object, object, bool]:
    """(YAML 1.2 value, YAML 1.1 value, whether they differ) of a scalar."""
    if _is_implicit(node):
        value = resolve_plain(node.value)
        old = _yaml11_value(node)
        return value, old, not _same(old, value)
    return tagged_scalar(node), None, False


_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _yaml11_value(node: yaml.ScalarNode) -> object:
    """What PyYAML's YAML 1.1 rules make of a plain scalar (dates as YYYY-MM-DD)."""
    if node.tag == STR_TAG:
        return node.value
    try:
        value = _CONSTRUCTOR.construct_object(node)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):
        return node.value
    return value.isoformat()[:10] if isinstance(value, (_dt.date, _dt.datetime)) else value


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _is_implicit(node: yaml.ScalarNode) -> bool:
    # compose() tags plain scalars with the YAML 1.1 resolver; a tag that differs from what
    # the resolver would pick was written explicitly (``!!str 123``) and is honoured.
    return node.tag == _RESOLVER.resolve(yaml.ScalarNode, node.value, (True, False))
