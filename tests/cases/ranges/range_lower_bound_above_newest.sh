pip install 'vllm>=9.0.0'
vllm serve org/model --max-model-lenx 4096
