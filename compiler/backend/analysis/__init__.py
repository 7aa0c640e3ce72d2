"""Analyses the backend passes and codegen query, none of which rewrites the IR: the symbolic index
arithmetic of a block (affine), masks as boxes (masks), windows and rows of indirect loads (windows,
rows), which combine the reduction engine runs (re_combine), and the bufferize plan read back from the IR
(plan)."""
