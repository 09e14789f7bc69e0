"""Rendering only (terminal tables, HTML): reads results, computes nothing new."""
