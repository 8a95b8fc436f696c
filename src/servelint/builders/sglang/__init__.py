"""Profile builder of this engine (reads the wheel, never imports it)."""
