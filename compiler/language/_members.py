"""The functions a tensor offers as methods (`x.sum(0)`, `x.exp()`, `ptrs.store(v)`), as Triton's member
functions. A submodule of its own (private to the package, so that `tl` gains no name) that core's
tensor asks at the first method call, once the modules defining them are loaded."""


def member_functions() -> dict:
    """Functions callable as tensor methods: x.sum(0), x.exp(), x.to(...) etc."""
    # imported here, after core: core is loaded before the modules that define these functions
    from . import builtins, math, reductions, standard
    by_module = {
        reductions: ("sum", "max", "min", "argmax", "argmin", "cumsum", "cumprod", "reduce", "xor_sum",
                     "associative_scan", "softmax", "reduce_or"),
        math: ("exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "abs", "sin", "cos", "erf", "floor", "ceil",
               "sigmoid"),
        builtins: ("ravel", "join", "interleave", "cast", "item", "squeeze", "unsqueeze", "gather", "histogram",
                   # a pointer tensor's members, as in Triton: ptrs.store(v), ptrs.atomic_add(v), ...
                   "store", "advance", "atomic_cas", "atomic_load", "atomic_store", "atomic_xchg", "atomic_add",
                   "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "cdiv"),
        standard: ("sort", "flip", "topk"),
    }
    return {name: getattr(module, name) for module, names in by_module.items() for name in names}
