"""Detection models, ML only (numpy, scikit-learn): the link detector and its rules, optics, NCCL variance."""
