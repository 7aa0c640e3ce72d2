"""Programs written by hand in MTIA assembly: the reference streams the simulator is validated on
(a double-buffered GEMM, DMA and DPE microbenchmarks)."""
