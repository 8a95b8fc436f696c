"""A validator failure's caveats (``ConditionFailure.only_if``): knowing the environment
drops the env-default caveat only, the others stay (check_values.without_env_caveat)."""

from __future__ import annotations

from servelint.engines.vllm.check_values import ConditionFailure, _env_caveat, without_env_caveat


def _failure(only_if: str, env: tuple[str, ...]) -> ConditionFailure:
    return ConditionFailure("C", "msg", "f.py:1", "engine_config", "t", ("x",), only_if=only_if,
                            env=env)


def test_a_known_environment_drops_the_env_caveat_and_keeps_the_others():
    env = ("VLLM_X",)
    hook = "a hook may set it"
    replaced = "unless the model's config makes y replace --z"
    for rest in ("", hook, f"{hook}; {replaced}", replaced):
        only_if = "; ".join(c for c in (_env_caveat(env), rest) if c)
        found = without_env_caveat(_failure(only_if, env))
        assert found.only_if == rest and found.env == ()


def test_a_failure_without_env_caveat_keeps_its_caveats():
    found = without_env_caveat(_failure("a hook may set it", ()))
    assert found.only_if == "a hook may set it"
