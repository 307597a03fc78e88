"""Bring-up: the topology read from what the fabric reports, and the cabling checked against the plan."""
