"""What the deployment readers share: YAML scalars read as shell text at their own columns
(``scalar_text``, ``record.ShellText``) and the one function that turns a container's
``launches.CommandRecord`` into launch specs (``launch.container_launches``). No reader of
its own."""
