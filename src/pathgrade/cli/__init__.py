"""The command line: thin modules, one per command, that call the public API and render."""
