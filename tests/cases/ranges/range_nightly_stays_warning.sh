# servelint-test: image=vllm/vllm-openai:nightly
# An undated nightly is newer than every release servelint knows: judged as the newest, never
# above warning, even for a flag removed long before (--task, gone in vLLM 0.13.0).
vllm serve Qwen/Qwen3-8B --task generate
