# ruff: noqa
class ReasoningParser:
    DetectorMap = {"qwen3": object, "deepseek-r1": object}
