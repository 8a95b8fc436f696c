# servelint-test: engine=vllm==0.33.0
# the same fact as warn_spec.sh: the tokens given, or a draft model whose config may give n_predict
vllm serve Qwen/Qwen3-8B --speculative-config '{"method": "ngram", "num_speculative_tokens": 4}'
vllm serve Qwen/Qwen3-8B --speculative-config '{"model": "org/draft-eagle"}'
vllm serve Qwen/Qwen3-8B --speculative-config '{"method": "ngram"}' --spec-tokens 4
