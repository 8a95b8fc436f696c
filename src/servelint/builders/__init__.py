"""Profile builder: reads a released wheel's sources and metadata (never imports them)."""

BUILDER_VERSION = "1"
