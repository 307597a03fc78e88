"""Post-mortems over storage: what happened to a link, a switch or a window, as one answer."""
