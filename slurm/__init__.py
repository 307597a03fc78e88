"""Slurm: which running jobs a link finding hurts, and (optionally) draining the node behind it."""
