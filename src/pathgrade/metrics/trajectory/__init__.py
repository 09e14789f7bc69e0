"""The trajectory layer: path-level scoring against reference paths."""
