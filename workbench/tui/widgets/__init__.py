"""Widgets take plain data (results, profiles, observations) and never touch engine or store."""
