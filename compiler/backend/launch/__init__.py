"""Launch-time specialisation: what the backend decides only once a launch's grid, arguments and placement
are known, in one call (`specialize.specialize` -> LaunchProgram). Which loads the programs running
together read alike (broadcast), whether a window box stays inside its array (window_bounds), and whether
a run-time i32 block crosses its type's range between its elements (i32_crossings)."""
