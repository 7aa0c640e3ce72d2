"""What a generated kernel does, in one word: its op class, from the ATen ops Inductor fused into it.

A model report sums cycles per class (`ModelReport.by_op_class`): matmul (mm/addmm templates, GEMVs
among them), attention (softmax, and the batched matmuls beside it), normalisation, embedding (gathers
of rows), reduction, copy (layout only), elementwise. A kernel fuses several ops; the first class
`op_class` checks that any of its ops belongs to names it: a matmul with a bias-and-ReLU epilogue is a
matmul, and so is one whose A tiles are the embedding rows it looked up and normalised (Llama's first
layer at prefill); a residual add fused into a layer norm is normalisation.
"""
from __future__ import annotations

# ATen op names (without "aten.") that decide a class; a kernel's ops are checked in this order
_ATTENTION = {"_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention_for_cpu",
              "_scaled_dot_product_efficient_attention", "scaled_dot_product_attention", "_softmax", "softmax",
              "_safe_softmax"}
_EMBEDDING = {"embedding", "_embedding_bag", "_embedding_bag_forward_only", "embedding_bag", "index",
              "index_select", "gather", "take"}
_MATMUL = {"mm", "addmm", "bmm", "baddbmm", "convolution", "_int_mm", "matmul"}
_NORMALISATION = {"native_layer_norm", "layer_norm", "native_group_norm", "native_batch_norm",
                  "_native_batch_norm_legit_no_training", "_fused_rms_norm", "rms_norm", "var_mean", "rsqrt"}
_REDUCTION = {"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod", "cumsum", "any", "all",
              "var", "std", "logsumexp", "norm", "linalg_vector_norm"}
_COPY = {"clone", "copy", "copy_", "_to_copy", "cat", "constant_pad_nd", "permute", "expand", "slice_scatter",
         "select_scatter", "index_put", "index_put_", "stack", "split_with_sizes"}

CLASSES = ("matmul", "attention", "normalisation", "embedding", "reduction", "elementwise", "copy")


def _names(aten_ops) -> set:
    return {str(op).removeprefix("aten.") for op in aten_ops}


def op_class(aten_ops, kind: str = "") -> str:
    """The class of one kernel from its ATen ops and Inductor's kind (pointwise, reduction, template, ...)."""
    ops = _names(aten_ops)
    if ops & _ATTENTION or {"amax", "exp"} <= ops:          # a softmax: Inductor's decomposition of it
        return "attention"
    if ops & _MATMUL or kind == "template":       # (a GEMM that fused the embedding lookup feeding it)
        return "matmul"
    if ops & _EMBEDDING:
        return "embedding"
    if ops & _NORMALISATION:
        return "normalisation"
    if ops & _REDUCTION or kind in ("reduction", "persistent_reduction", "split_scan"):
        return "reduction"
    if ops and ops <= _COPY:
        return "copy"
    return "elementwise"


def op_classes(kernels) -> list[str]:
    """The class of each of a run's `kernels` (KernelRuns, in launch order). A batched matmul right before
    or after a softmax kernel is attention's (q k^T, then the weights times v); one elsewhere (a DLRM's
    pairwise dot interaction) stays a matmul."""
    classes = [op_class(k.aten_ops, k.kind) for k in kernels]
    batched = [bool(_names(k.aten_ops) & {"bmm", "baddbmm"}) for k in kernels]
    out = list(classes)
    for i, c in enumerate(classes):
        if c == "matmul" and batched[i]:
            if "attention" in classes[max(i - 1, 0):i] + classes[i + 1:i + 2]:
                out[i] = "attention"
    return out
