"""The stages a text runs through, in order: scan, mentions, match, targets, coded,
suppress, decide (see docs/engine-pipeline.md)."""
