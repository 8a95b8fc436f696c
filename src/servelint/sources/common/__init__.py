"""What every reader shares: positioned YAML, the pip grammar, read problems, read files."""
