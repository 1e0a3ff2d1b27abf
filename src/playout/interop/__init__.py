"""Adapters that let playout's solvers drive games written elsewhere."""
