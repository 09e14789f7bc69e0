"""The only place that parses files: cases and runs, results, TREC files, config TOML."""
