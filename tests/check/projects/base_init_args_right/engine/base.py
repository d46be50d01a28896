class Runner:
    def __init__(self, model, loader, optimizer, scheduler, epochs):
        self.model = model
        self.loader = loader
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.epochs = epochs

    def run(self):
        for _epoch in range(self.epochs):
            for x in self.loader:
                self.train_step(x)
                self.scheduler.step()

    def train_step(self, x):
        raise NotImplementedError
