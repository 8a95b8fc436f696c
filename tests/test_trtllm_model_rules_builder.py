"""The TensorRT-LLM builder pieces behind the whole-model option-file checks:
``build_backends.supports_backend`` and ``build_spec_asserts.speculative_asserts``, on the
code shapes of tensorrt_llm/llmapi/llm_args.py (1.3.0rc3, nctu6/vllm-tensorrt@5978a46
third_party/tensorrt_llm) and on shapes they must not guess."""

from __future__ import annotations

import ast
import textwrap

from servelint.builders.trtllm.build_backends import supports_backend
from servelint.builders.trtllm.build_spec_asserts import speculative_asserts


def _cls(src: str) -> ast.ClassDef:
    node = ast.parse(textwrap.dedent(src)).body[0]
    assert isinstance(node, ast.ClassDef)
    return node


def test_supports_backend_shapes() -> None:
    one = _cls('''
        class A:
            def supports_backend(self, backend: str) -> bool:
                """doc"""
                return backend == "pytorch"
    ''')
    assert supports_backend(one) == {"op": "in", "values": ["pytorch"], "line": 3}
    both = _cls('''
        class B:
            def supports_backend(self, backend):
                return backend == "pytorch" or backend == "_autodeploy"
    ''')
    assert supports_backend(both)["values"] == ["pytorch", "_autodeploy"]
    not_in = _cls('''
        class C:
            def supports_backend(self, backend):
                return backend not in ("pytorch", "_autodeploy")
    ''')
    assert supports_backend(not_in)["op"] == "not_in"
    always = _cls('''
        class D:
            def supports_backend(self, backend):
                return True
    ''')
    assert supports_backend(always) == {"op": "not_in", "values": [], "line": 3}


def test_supports_backend_unknown_shapes_record_nothing() -> None:
    for body in ("return backend.startswith('py')", "x = 1\n        return True",
                 "return self.flag", "return backend == SOME_CONSTANT"):
        cls = _cls(f"class E:\n    def supports_backend(self, backend):\n        {body}\n")
        assert supports_backend(cls) is None, body
    assert supports_backend(_cls("class F:\n    x: int = 1\n")) is None


def test_speculative_asserts_chain() -> None:
    cls = _cls('''
        class TorchLlmArgs:
            def validate_speculative_config(self):
                if self.speculative_config:
                    if isinstance(self.speculative_config, EagleDecodingConfig):
                        assert self.speculative_config.max_draft_len > 0
                        assert self.speculative_config.speculative_model is not None, "m"
                    elif isinstance(self.speculative_config, NGramDecodingConfig):
                        assert self.speculative_config.max_draft_len > 0 and self.speculative_config.n >= 1
                    elif isinstance(self.speculative_config, Other):
                        assert some_call(self.speculative_config)
                        assert self.speculative_config.after > 0
                    elif isinstance(self.speculative_config, Last):
                        assert self.backend in ["pytorch"]
                return self
    ''')
    chain = speculative_asserts(cls)
    assert [b["class"] for b in chain] == ["EagleDecodingConfig", "NGramDecodingConfig",
                                           "Other", "Last"]
    assert chain[0]["checks"] == [
        {"field": "max_draft_len", "op": "gt", "value": 0, "line": 6},
        {"field": "speculative_model", "op": "is_not", "value": None, "line": 7},
    ]
    assert [c["op"] for c in chain[1]["checks"]] == ["gt", "ge"]
    # an assert of another shape ends the branch's record: what follows may not run
    assert chain[2]["checks"] == []
    assert chain[3]["checks"] == []
    assert speculative_asserts(_cls("class G:\n    def other(self):\n        pass\n")) is None
