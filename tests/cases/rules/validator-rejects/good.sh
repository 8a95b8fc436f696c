# servelint-test: engine=vllm==0.21.0
# the same facts as bad.sh / bad_traces.sh, with the options they ask for
vllm serve Qwen/Qwen3-8B --numa-bind --numa-bind-nodes 0 \
  --collect-detailed-traces all --otlp-traces-endpoint http://collector:4317
