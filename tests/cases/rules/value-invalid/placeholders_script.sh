# servelint-test: engine=vllm==0.11.0
# A template script (the shapes of the public guides cited in placeholders.md): bash would
# read <N> as redirections and [other flags] as two words; each is a placeholder.
vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size <N> --port 8000
vllm serve {model} --tensor-parallel-size {tp} [other flags]
vllm serve meta-llama/Llama-3.1-8B-Instruct --host "your ip" --port 8000 ...
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 <other option>
vllm serve <model> --tensor-parallel-size <N> --bogus-flag 1
