"""Text handling below the rules: RE2 access, normalization, offsets, sentence bounds."""
