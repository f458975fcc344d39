"""Evaluation, apart from the classification path: the benchmark suite, the legacy
gate and validation runs over labelled samples."""
