"""Memories of the model: global memory (DRAM + SRAM scratch) and each PE's local store with its
circular buffers."""
