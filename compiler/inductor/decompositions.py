"""ATen ops that Inductor leaves to the host on CPU, rewritten into ops it generates Triton for."""
from __future__ import annotations

import torch
from torch._decomp import get_decompositions
from torch._inductor.decomposition import select_decomp_table

aten = torch.ops.aten

# attention the flash-attention kernel does not take (a mask, dropout; `flash_attention.py`): torch's own
# decomposition into matmuls, masking and a softmax
_FROM_TORCH = [aten._scaled_dot_product_flash_attention_for_cpu]
_MODES = {0: "sum", 1: "mean", 2: "amax"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    """aten._embedding_bag as a gather of rows and a segment reduction Inductor lowers to kernels:
    index i belongs to bag searchsorted(offsets, i, right) - 1; rows are gathered, weighted and
    reduced into their bag (index_add / index_reduce). Returns ATen's four outputs."""
    if indices.dim() != 1:          # 2-D indices: fixed-size bags, one per row
        bags = indices.shape[0]
        offsets = torch.arange(0, indices.numel(), indices.shape[1], device=indices.device)
        indices = indices.reshape(-1)
    else:
        bags = offsets.shape[0] - (1 if include_last_offset else 0)
    positions = torch.arange(indices.shape[0], device=indices.device, dtype=offsets.dtype)
    bag = torch.searchsorted(offsets[:bags].contiguous(), positions, right=True) - 1
    rows = weight[indices]
    keep = (indices != padding_idx) if padding_idx >= 0 else torch.ones_like(indices, dtype=torch.bool)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    rows = torch.where(keep.unsqueeze(1), rows, torch.zeros_like(rows))
    counts = torch.zeros(bags, dtype=weight.dtype, device=weight.device).index_add(0, bag, keep.to(weight.dtype))
    out = torch.zeros(bags, weight.shape[1], dtype=weight.dtype, device=weight.device)
    if _MODES[mode] == "amax":
        out = out.index_reduce(0, bag, rows, "amax", include_self=False)
    else:
        out = out.index_add(0, bag, rows)
        if _MODES[mode] == "mean":
            out = out / counts.clamp(min=1).unsqueeze(1)
    max_indices = torch.zeros(bags if mode == 2 else 0, dtype=indices.dtype, device=indices.device)
    return out, bag, counts.to(indices.dtype), max_indices


def convolution_bias_apart(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """aten.convolution with its bias added after it, as Inductor's lowering does for every device but
    the CPU (its Triton convolution templates take no bias: on a CPU tensor they would drop it)."""
    if bias is None:
        return NotImplemented            # Inductor's own lowering (its templates)
    out = aten.convolution(x, weight, None, stride, padding, dilation, transposed, output_padding, groups)
    return out + bias.view(-1, *[1] * (out.dim() - 2))


def _addmm_of_one_bias(inductor_addmm):
    """aten.addmm whose bias is one element (a Linear with one output feature) as mm + bias: the bias
    then fuses into the mm template's epilogue. Inductor's addmm lowering would write the element into
    every row of the output first, its own kernel (32 KB for 8192 rows, a launch for nothing)."""
    def addmm(self, mat1, mat2, *args, beta=1, alpha=1, **kwargs):
        if self.numel() != 1 or args or kwargs:
            return inductor_addmm(self, mat1, mat2, *args, beta=beta, alpha=alpha, **kwargs) \
                if inductor_addmm is not None else NotImplemented
        out = aten.mm(mat1, mat2)
        out = out if alpha == 1 else out * alpha
        return out + (self if beta == 1 else self * beta)
    return addmm


def decomposition_table() -> dict:
    table = dict(select_decomp_table())
    table[aten.addmm.default] = _addmm_of_one_bias(table.get(aten.addmm.default))
    table.update(get_decompositions(_FROM_TORCH))
    table[aten._embedding_bag.default] = embedding_bag
    table[aten._embedding_bag_forward_only.default] = embedding_bag
    table[aten.convolution.default] = convolution_bias_apart
    return table
