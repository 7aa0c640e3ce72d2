"""Codegen: the backend's final IR -> instructions over virtual registers (generate.py, one module per engine's
ops), with the C++ (cpp.py) and LLVM IR (llvm.py) renderings of the same program."""
