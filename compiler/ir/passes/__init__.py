"""IR passes, one per file, each a frozen dataclass with `name` and `run(module)`."""
from .constant_fold import ConstantFold
from .cse import CommonSubexpressionElimination
from .dce import DeadCodeElimination
from .fuse_dot_add import FuseDotAdd
from .pipeline import DEFAULT_PIPELINE, PASSES, pipeline, run_pipeline

__all__ = ["ConstantFold", "CommonSubexpressionElimination", "DeadCodeElimination", "FuseDotAdd", "DEFAULT_PIPELINE", "PASSES", "pipeline", "run_pipeline"]
