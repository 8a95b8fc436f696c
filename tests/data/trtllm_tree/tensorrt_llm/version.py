# A synthetic tree for servelint's builder tests (shaped like a TensorRT-LLM release).
__version__ = "9.9.0rc1"
