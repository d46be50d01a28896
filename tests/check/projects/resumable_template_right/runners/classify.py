from core import LoopBase


class ClassifyLoop(LoopBase):
    def __init__(self, net, opt, settings, batches, lr_scheduler=None):
        super().__init__(net, opt, settings, lr_scheduler)
        self.batches = batches

    def one_epoch(self, epoch):
        self.net.train()
        for x, y in self.batches:
            self.opt.zero_grad()
            loss = (self.net(x) - y).pow(2).mean()
            loss.backward()
            self.opt.step()
        if self.lr_scheduler is not None:
            self.lr_scheduler.step()
