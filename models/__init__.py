"""Anomaly detection (link detector, collective detector) lands with the detection issues."""
