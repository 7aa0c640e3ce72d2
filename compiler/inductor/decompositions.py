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
    every row of the output first, its own kernel (32 KB for 8192 rows, a launch for nothing).
    An addmm of one row (a decode step's Linear with a bias) is mm + bias too: the mm is then a
    reduction (`_mm_of_one_row`) and the bias fuses into it."""
    def addmm(self, mat1, mat2, *args, beta=1, alpha=1, **kwargs):
        if (self.numel() != 1 and mat1.shape[0] != 1) or args or kwargs:
            return inductor_addmm(self, mat1, mat2, *args, beta=beta, alpha=alpha, **kwargs) \
                if inductor_addmm is not None else NotImplemented
        out = aten.mm(mat1, mat2)
        out = out if alpha == 1 else out * alpha
        return out + (self if beta == 1 else self * beta)
    return addmm


def _mm_of_one_row(inductor_mm):
    """aten.mm whose first operand is one row (a decode step's Linear: x [1, K] @ W.T) as a multiply
    and a sum over K, in f32. Inductor does the same on GPUs (its `mm` decomposition, under coordinate
    descent tuning) and leaves CPU tensors to the template: the template's [BLOCK_K, BLOCK_N] tiles of
    W.T read W in 128-byte runs of K, each landing in another DRAM row (a quarter of the channel time
    went to activates), and move through SRAM one 32-byte burst per element of a tile's rows (16x W's
    bytes): 71% of the DRAM floor. The reduction kernel reads each row of W as one long run of K, its
    blocks tuned like any reduction's (timing-only): 97% (1x4096x4096 f16 on mtia-2i)."""
    def mm(self, mat2, *args, **kwargs):
        one_row = (self.dim() == 2 and self.shape[0] == 1 and self.dtype.is_floating_point
                   and mat2.dtype == self.dtype and not args and not kwargs)
        if not one_row:
            return inductor_mm(self, mat2, *args, **kwargs) if inductor_mm is not None else NotImplemented
        return (self.unsqueeze(2).float() * mat2.unsqueeze(0).float()).sum(dim=1).to(self.dtype)
    return mm


def decomposition_table() -> dict:
    table = dict(select_decomp_table())
    table[aten.addmm.default] = _addmm_of_one_bias(table.get(aten.addmm.default))
    table[aten.mm.default] = _mm_of_one_row(table.get(aten.mm.default))
    table.update(get_decompositions(_FROM_TORCH))
    table[aten._embedding_bag.default] = embedding_bag
    table[aten._embedding_bag_forward_only.default] = embedding_bag
    table[aten.convolution.default] = convolution_bias_apart
    return table
