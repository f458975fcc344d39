"""Versioned taxonomy data: YAML files read by ``engine.taxonomy``; no code lives here."""
