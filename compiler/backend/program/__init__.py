"""Rewrites of the emitted isa.Program, after codegen: virtual registers onto the PE's registers
(regalloc), the command forms of tight issue loops (command_forms), and a persistent program's final
store deferred past the next program's first loads (defer_store)."""
