"""servelint: check LLM-serving launch configurations against the engine release they pin."""

__version__ = "0.1.0"
