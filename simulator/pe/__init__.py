"""A processing element: control core, command processor, DPE, SE, RE, MLU, DMA; one file each."""
