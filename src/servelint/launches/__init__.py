"""Launch assembly: readers produce command records, one assembler turns them into launches.

A reader states what a document says and nothing about engines: for each command it finds,
a ``CommandRecord`` (``launches.record``) with the words and their spans (symbolic where
the document does not fix a value: variables, ``<placeholders>``), the env with spans,
the container image and entrypoint when the file kind says (Kubernetes, compose), the
install lines and files the document provides before the command, and its ``Origin``
(file kind, path, rendering label). ``assemble(record) -> Assembly`` then decides,
asking only the engine registry (``servelint.engines``):

* which engine the words start (``Engine.launchers``; wrappers such as ``env``, ``nohup``,
  ``mpirun``, ``srun`` skipped; a wrapper's module such as ``dynamo.vllm`` names the
  engine it wraps with ``Module.starts``);
* what a container runs (``docker run``/``podman run`` words, or ``record.image``): the
  image's entrypoint per release (``Images.entrypoint``) or the one the document sets;
* the config file a config flag names, when the document wrote it: kept for the engine's
  option-file checks (``Engine.option_file_checks``) and expanded into argv
  (``Engine.config_expander``);
* the release an install line pins (``Engine.package``).

Its ``specs`` are ``LaunchSpec``s ready for the judge; its ``problems`` the reader reports
as its own. The API is this module's names:

    starts_launch(words) -> bool          # cheap: worth building a record for these words?
    assemble(record) -> Assembly          # specs, problems, container image, container shell
    in_container(spec, container)         # a launch a reader found inside Assembly.shell
    config_file_value(spec), expand_config_file(spec, at, lines)   # a file found later

A new file kind (Kubernetes, Helm, compose) builds records and calls ``assemble``; it
never names an engine. The Dynamo worker split is judged later, through the engine's
``launch_adapter`` (``servelint.pipeline.judge``).
"""

from servelint.launches.assemble import (
    assemble,
    config_file_value,
    expand_config_file,
    in_container,
    starts_launch,
)
from servelint.launches.record import Assembly, CommandRecord, Container, Lines, Origin

__all__ = [
    "Assembly",
    "CommandRecord",
    "Container",
    "Lines",
    "Origin",
    "assemble",
    "config_file_value",
    "expand_config_file",
    "in_container",
    "starts_launch",
]
