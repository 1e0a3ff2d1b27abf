"""Reference domains (registry filled in below)."""
