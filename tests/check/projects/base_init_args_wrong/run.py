"""Driver: builds the pieces and hands them to the project's runner."""

import torch
from engine import ImageRunner

model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
ImageRunner(model, loader, epochs=90).run()
