"""``docker run`` command lines (in guides and launchers): the image, the entrypoint and the
engine command the container starts. Used by the Markdown and shell readers; no file kind
of its own."""
