"""The taxonomy: its models, loading and checking, and compiling it into RE2 source."""
