"""A tracer for tests that ask in which order DMA transfers started: it records (pe, program,
mnemonic, start cycle) of every DMA command as it completes (simulator tracers get issue/complete)."""


class DmaStarts:
    def __init__(self):
        self.dma = []

    def issue(self, pe, cmd):
        pass

    def complete(self, pe, cmd):
        if cmd.engine.kind == "dma":
            self.dma.append((pe.index, cmd.pid[0], cmd.ins.mnemonic, cmd.start))
