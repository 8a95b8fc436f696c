"""What deployment files share: a container's command record (``record``), YAML scalars
read as shell text at their own columns (``scalar_text``), and the one function that turns
a record into launch specs (``launch.container_launches``). No reader of its own."""
