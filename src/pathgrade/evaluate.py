"""Orchestration: cases + runs + config -> results (filled in by the trajectory engine)."""
