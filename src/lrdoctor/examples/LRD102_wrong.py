import torch

torch.manual_seed(0)


class BagOfWords(torch.nn.Module):
    def __init__(self, vocab=1000, dim=32):
        super().__init__()
        self.embed = torch.nn.EmbeddingBag(vocab, dim)
        self.classify = torch.nn.Linear(dim, 2)

    def forward(self, tokens):
        return self.classify(self.embed(tokens))


model = BagOfWords().half()  # float16 parameters to halve the memory
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)  # wrong: eps=1e-8 is 0 in float16

for step in range(20):
    tokens = torch.randint(0, 500, (32, 16))  # words 500..999 never occur: gradient 0
    labels = torch.randint(0, 2, (32,))
    loss = torch.nn.functional.cross_entropy(model(tokens).float(), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
