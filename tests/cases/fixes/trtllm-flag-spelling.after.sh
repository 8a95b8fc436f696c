# servelint-test: engine=trtllm==1.3.0rc3
# click matches option strings exactly: the dashed spellings are renamed to the release's own
trtllm-serve Qwen/Qwen3-8B --max_batch_size 8 --tp_size=2 --trust_remote_code
