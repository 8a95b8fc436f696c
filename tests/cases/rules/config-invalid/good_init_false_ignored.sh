# servelint-test: engine=vllm==0.11.0
# max_capture_size and compilation_time are field(init=False) in 0.11.0's CompilationConfig,
# whose extra keys are ignored: pydantic drops the keys unvalidated (real 0.11.0 parser and
# engine config accept these)
vllm serve org/m --compilation-config '{"max_capture_size": "abc", "compilation_time": null}'
vllm serve org/m --compilation-config.max_capture_size 1k
