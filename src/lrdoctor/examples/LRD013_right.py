# torchrun --nproc_per_node=2 LRD013_right.py
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
torch.manual_seed(0)
data = TensorDataset(torch.randn(1024, 16), torch.randn(1024, 1))
sampler = DistributedSampler(data)
loader = DataLoader(data, batch_size=32, sampler=sampler)
model = DDP(torch.nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1)

for epoch in range(6):
    sampler.set_epoch(epoch)
    total = torch.zeros(())
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.detach()
    dist.all_reduce(total)  # every rank now holds the same sum
    scheduler.step(total.item() / (len(loader) * dist.get_world_size()))
dist.destroy_process_group()
