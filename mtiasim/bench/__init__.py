"""The benchmarks, one module each, each runnable with `python -m mtiasim.bench.NAME` where it has a
`main` (kernels, autotune_speed, interpreter_speed, inductor_kernels, inductor_coverage, model_cache); `mtiasim
bench` runs simulator, startup, compile and kernels.

    simulator.py          the simulator's speed on a GEMM stream against a plain SimPy loop
    startup.py            `mtiasim --help` against `python -c "import numpy"`
    compile.py            how long each library kernel takes to compile
    kernels.py            the kernel benchmark: cycles, fraction of peak, ablations per kernel
    autotune_speed.py     autotuning the tutorial matmul, serial against parallel trials
    interpreter_speed.py  the simulator with numerics against Triton's own interpreter
    inductor_kernels.py   the Inductor example models' kernels
    inductor_coverage.py  public model architectures through Inductor: what runs on the simulator
    serving.py            Llama prefill and decode at production size beside their floors, and their host time
    model_cache.py        a second `mtiasim model` of the README's example against the first (the cached run)
"""
