"""Shared parts of the chip: bandwidth links, the LLC, and the memory system behind the NoC."""
