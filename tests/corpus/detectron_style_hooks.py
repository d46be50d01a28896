"""Hook-based trainer in the style of detectron2 (correct: the scheduler comes from code the
checker cannot see, so nothing is guessed about it)."""
import torch


class HookBase:
    trainer = None

    def after_step(self):
        pass


class LRScheduler(HookBase):
    def __init__(self, optimizer=None, scheduler=None):
        self._optimizer = optimizer
        self._scheduler = scheduler

    def after_step(self):
        lr = self._optimizer.param_groups[0]["lr"]
        self.trainer.storage.put_scalar("lr", lr, smoothing_hint=False)
        self.scheduler.step()

    @property
    def scheduler(self):
        return self._scheduler or self.trainer.scheduler


class SimpleTrainer:
    def __init__(self, model, data_loader, optimizer):
        self.model = model
        self.data_loader = data_loader
        self._data_loader_iter = iter(data_loader)
        self.optimizer = optimizer

    def run_step(self):
        data = next(self._data_loader_iter)
        losses = sum(self.model(data).values())
        self.optimizer.zero_grad()
        losses.backward()
        self.optimizer.step()

    def train(self, start_iter, max_iter, hooks):
        for self.iter in range(start_iter, max_iter):
            self.run_step()
            for h in hooks:
                h.after_step()
