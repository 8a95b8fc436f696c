# servelint-test: engine=vllm==0.33.0
# local_cache_dir is field(init=False) in CompilationConfig: real 0.33.0 parser: "Unexpected keyword argument"
vllm serve org/m --compilation-config '{"local_cache_dir": "/tmp/x"}'
