class HfTokenizer:
    pass
