"""DCGAN with one optimizer and one scheduler per network, stepped per epoch (correct)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def train_gan(netG: nn.Module, netD: nn.Module, dataset, epochs=25, nz=100):
    loader = DataLoader(dataset, batch_size=128, shuffle=True, num_workers=2)
    criterion = nn.BCEWithLogitsLoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    schedulers = {
        "D": torch.optim.lr_scheduler.StepLR(optimizerD, step_size=10, gamma=0.5),
        "G": torch.optim.lr_scheduler.StepLR(optimizerG, step_size=10, gamma=0.5),
    }
    for epoch in range(epochs):
        for i, (real, _) in enumerate(loader):
            b = real.size(0)
            netD.zero_grad()
            errD_real = criterion(netD(real).view(-1), torch.ones(b))
            noise = torch.randn(b, nz, 1, 1)
            fake = netG(noise)
            errD_fake = criterion(netD(fake.detach()).view(-1), torch.zeros(b))
            (errD_real + errD_fake).backward()
            optimizerD.step()
            netG.zero_grad()
            errG = criterion(netD(fake).view(-1), torch.ones(b))
            errG.backward()
            optimizerG.step()
        for name, sched in schedulers.items():
            sched.step()
        print(f"[{epoch}/{epochs}] Loss_D {(errD_real + errD_fake).item():.4f} Loss_G {errG.item():.4f}")
