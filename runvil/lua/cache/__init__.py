"""Caches on disk: what start-up would otherwise rebuild in every process."""
