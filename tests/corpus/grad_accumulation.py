"""Gradient accumulation with the scheduler stepped with the optimizer (correct)."""
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, get_cosine_schedule_with_warmup

ACCUM_STEPS = 8
EPOCHS = 3


def train(dataset):
    model = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=2).cuda()
    loader = DataLoader(dataset, batch_size=4, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)
    updates_per_epoch = len(loader) // ACCUM_STEPS
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=100,
                                                num_training_steps=EPOCHS * updates_per_epoch)
    model.train()
    for epoch in range(EPOCHS):
        for step, batch in enumerate(loader):
            batch = {k: v.cuda() for k, v in batch.items()}
            loss = model(**batch).loss / ACCUM_STEPS
            loss.backward()
            if (step + 1) % ACCUM_STEPS == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
