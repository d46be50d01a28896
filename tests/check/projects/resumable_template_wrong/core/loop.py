import torch


class LoopBase:
    """Owns the epoch loop, saving and resuming; subclasses do one epoch's work."""

    def __init__(self, net, opt, settings):
        self.net = net
        self.opt = opt
        self.total_epochs = settings["epochs"]
        self.first_epoch = 0
        if settings.get("resume_from"):
            self.restore(settings["resume_from"])

    def one_epoch(self, epoch):
        raise NotImplementedError

    def train(self):
        for epoch in range(self.first_epoch, self.total_epochs):
            self.one_epoch(epoch)
            self.snapshot(epoch)

    def snapshot(self, epoch):
        blob = {"epoch": epoch, "net": self.net.state_dict(), "opt": self.opt.state_dict()}
        torch.save(blob, f"snap_{epoch}.pt")

    def restore(self, path):
        blob = torch.load(path, weights_only=True)
        self.first_epoch = blob["epoch"] + 1
        self.net.load_state_dict(blob["net"])
        self.opt.load_state_dict(blob["opt"])
