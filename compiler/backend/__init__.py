"""The MTIA backend: Triton IR -> MTIA IR (DMA ops, engines, circular buffers) -> isa.Program.

Its folders, in pipeline order (pipeline.py is the whole pipeline in one function):

    analysis/   what the passes and codegen ask of the IR: index arithmetic, masks, windows, rows,
                reduction combines, the bufferize plan, and the i32 guards a launch checks
    passes/     IR -> IR rewrites, one per file, in the order pipeline.backend_passes lists them
    codegen/    the rewritten IR -> instructions over virtual registers, C++ and LLVM renderings
    program/    rewrites of the emitted isa.Program: registers, command forms, deferred stores
    launch/     specialisation to one launch's grid, arguments and placement (specialize.py)

and beside them: pipeline.py, options.py (the optimisation switches), target.py (which unit runs which op,
the config's numbers) and dialect.py (the mtia.* ops the memory lowering introduces).
"""
