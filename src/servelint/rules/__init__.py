"""servelint's rules: one module per rule; ``servelint.rules.registry`` is the catalogue."""
