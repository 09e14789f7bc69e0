"""The system layer: latency, tokens and cost; approvals, faults, resume, tenants, injections."""
