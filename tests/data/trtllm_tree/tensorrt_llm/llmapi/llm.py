def check(kwargs, valid):
    for key in kwargs:
        if key not in valid:
            raise ValueError(f"LLM got invalid argument: {key}")


def torch_only(specific):
    if specific:
        raise ValueError(f"arguments are specific to TensorRT backend: {specific}")
