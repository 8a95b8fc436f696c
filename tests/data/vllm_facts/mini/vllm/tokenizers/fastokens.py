_MIN = "0.2.0"


def apply_patch():
    try:
        import fastokens  # noqa: F401
    except ImportError as e:
        raise ImportError(f"The 'fastokens' package (>= {_MIN}) is needed here.") from e
