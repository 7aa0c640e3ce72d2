"""The MTIA backend: Triton IR -> MTIA IR (DMA ops, engines, circular buffers) -> isa.Program."""
