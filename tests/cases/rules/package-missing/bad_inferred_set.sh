# servelint-test: image=lmsysorg/sglang:v0.5.23
python -m sglang.launch_server --model-path m --enable-http2
