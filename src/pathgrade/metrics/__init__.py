"""Pure metric kernels by layer (trajectory, retrieval, tool, answer), specs and registry."""
