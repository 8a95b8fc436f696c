# ruff: noqa
TOOL_CALL_PARSER_NAMES = ["qwen", "glm"]
