"""Estimators only (numpy, scikit-learn), each fitted on healthy history; the rules that turn their scores
into findings (link rules, optics) are in detection/."""
