"""Small pieces every stage shares: size budgets (``budget``), text made safe for terminals
and JSON (``textsafe``), distribution names (``package_names``), GPU facts by hardware id
(``hardware``), checks of the values a user types (``cli_values``) and the bounded memo
(``lru``)."""
