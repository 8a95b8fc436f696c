# ruff: noqa
class EnvField:
    pass


class EnvBool(EnvField):
    def parse(self, value):
        value = value.lower()
        if value in ["true", "1"]:
            return True
        if value in ["false", "0"]:
            return False
        raise ValueError(value)


class EnvInt(EnvField):
    pass


class EnvBoolWithAlias(EnvBool):
    pass


class Envs:
    SGLANG_USE_X = EnvBool(False)
    SGLANG_CHUNK = EnvInt(16)
    SGLANG_NEW = EnvBoolWithAlias(True, deprecated_name="SGLANG_OLD")


envs = Envs()

_DEPRECATED_ENVS: dict = {
    "SGLANG_GONE": _DeprecatedEnv(note="Please use '--gone-flag' instead."),
    "SGLANG_MOVED": _DeprecatedEnv(replacement="SGLANG_CHUNK"),
}


def _handle_deprecated_envs():
    import os
    for key in list(os.environ):
        if key.startswith("SGL_"):
            pass
