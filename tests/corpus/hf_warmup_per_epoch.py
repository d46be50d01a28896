"""A hand-written HF fine-tuning loop whose warm-up schedule is stepped per epoch (bug: LRD003)."""
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup

EPOCHS = 4
BATCH_SIZE = 16


def collate(batch):
    return torch.stack([b["input_ids"] for b in batch])


def main(dataset):
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    model.train()
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5, weight_decay=0.01)
    total_steps = len(loader) * EPOCHS
    scheduler = get_linear_schedule_with_warmup(
        optimizer, num_warmup_steps=int(0.1 * total_steps), num_training_steps=total_steps
    )
    for epoch in range(EPOCHS):
        running = 0.0
        for input_ids in loader:
            out = model(input_ids=input_ids, labels=input_ids)
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            running += out.loss.item()
        scheduler.step()  # expect: LRD003
        print(f"epoch {epoch}: loss {running / len(loader):.3f} lr {scheduler.get_last_lr()[0]:.2e}")
    model.save_pretrained("out")
