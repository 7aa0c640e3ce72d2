"""The model zoo: named model shapes from public model cards and the torch models built from them
(`llama.py`: decoder LLMs of the Llama family). Models are built on torch's meta device, so a 7B
model costs no memory until `compiler.inductor.estimate` runs it timing-only."""
