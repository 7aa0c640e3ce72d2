"""Host-side helpers kernels' callers use, as `triton.tools` offers them (`tensor_descriptor`)."""
