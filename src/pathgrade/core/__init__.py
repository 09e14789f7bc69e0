"""Data types shared by every layer: no I/O, no rendering."""
