# servelint-test: engine=vllm==0.21.0
# a symbolic value is never judged, but the flag name is
vllm serve "$MODEL" --tensor-parallel-size "$TP" --no-such-flag "$X"
