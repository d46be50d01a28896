"""Diffusion fine-tuning in the style of diffusers' train scripts (correct: the noise scheduler is
not an LR scheduler; the LR scheduler is stepped per update under accelerator.accumulate)."""
import math
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from diffusers import DDPMScheduler, UNet2DModel
from diffusers.optimization import get_scheduler


def main(args, train_dataloader):
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps,
                              mixed_precision="fp16")
    noise_scheduler = DDPMScheduler.from_pretrained(args.model, subfolder="scheduler")
    unet = UNet2DModel.from_pretrained(args.model, subfolder="unet")
    optimizer = torch.optim.AdamW(unet.parameters(), lr=args.learning_rate)
    num_update_steps_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    max_train_steps = args.num_train_epochs * num_update_steps_per_epoch
    lr_scheduler = get_scheduler(args.lr_scheduler, optimizer=optimizer,
                                 num_warmup_steps=args.lr_warmup_steps * accelerator.num_processes,
                                 num_training_steps=max_train_steps * accelerator.num_processes)
    unet, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        unet, optimizer, train_dataloader, lr_scheduler)
    for epoch in range(args.num_train_epochs):
        unet.train()
        for step, batch in enumerate(train_dataloader):
            with accelerator.accumulate(unet):
                latents = batch["pixel_values"]
                noise = torch.randn_like(latents)
                timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],))
                noisy = noise_scheduler.add_noise(latents, noise, timesteps)
                pred = unet(noisy, timesteps).sample
                loss = F.mse_loss(pred.float(), noise.float())
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(unet.parameters(), 1.0)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        if accelerator.is_main_process:
            accelerator.save_state(f"{args.output_dir}/checkpoint-{epoch}")


def sample(unet, noise_scheduler, shape):
    image = torch.randn(shape)
    noise_scheduler.set_timesteps(50)
    for t in noise_scheduler.timesteps:
        with torch.no_grad():
            model_output = unet(image, t).sample
        image = noise_scheduler.step(model_output, t, image).prev_sample
    return image
