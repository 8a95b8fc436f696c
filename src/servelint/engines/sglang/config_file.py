"""Load the YAML file ``--config`` names as SGLang does (``yaml.safe_load``), within bounds.

SGLang's ConfigArgumentMerger turns every value into argv text with ``str()``; a document
whose aliases expand to millions of nodes ("billion laughs") makes that take forever, in the
release and in servelint alike. Such a file, or one too large, is refused here with
``ConfigTooLarge`` (reported on the launch line) before anything expands it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from servelint.sources.common.yaml_bounded import (
    YamlBudgetError,
    read_yaml_bytes,
    safe_load_bounded,
)

MAX_BYTES = 64 << 20


class ConfigTooLarge(ValueError):
    pass


def load(path: str) -> Any:
    """``yaml.safe_load`` of the file, or ConfigTooLarge / OSError / yaml.YAMLError (the
    file is noted as one the result depends on: an edit of it invalidates the cache)."""
    return load_text(lambda: read_yaml_bytes(path, MAX_BYTES))


def load_text(read: Callable[[], str]) -> Any:
    """``yaml.safe_load`` of the text ``read()`` gives (a file's, or the text a document
    writes to it), within the same bounds."""
    try:
        return safe_load_bounded(read())
    except YamlBudgetError as exc:
        why = str(exc)
        if "aliases" in why:
            why += ("; the release's config merge turns each value into argv text with str(), "
                    "which does not finish on it")
        else:
            why += ", more than servelint reads"
        raise ConfigTooLarge(why) from None
    except RecursionError:
        raise ConfigTooLarge("is nested too deeply to read") from None
