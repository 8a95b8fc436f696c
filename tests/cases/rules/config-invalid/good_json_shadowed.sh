# servelint-test: engine=vllm==0.11.0
# argparse keeps the last value of --speculative-config, and FlexibleArgumentParser appends
# the object the dotted keys fold into after every other argument
# (vllm/utils/__init__.py:1977): the engine never sees the first two objects
vllm serve m --speculative-config '{"max_model_len": "1k"}' \
  --speculative-config '{"enforce_eager": "x"}' --speculative-config.max_model_len 8
vllm serve m --speculative-config '{"max_model_len": "1k"}' --speculative-config '{}'
