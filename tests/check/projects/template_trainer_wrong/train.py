import argparse

from trainers import ClassifierTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    trainer = ClassifierTrainer(build_model(), build_data(), args.epochs)
    trainer.fit()


def build_model():
    import torch
    return torch.nn.Linear(8, 2)


def build_data():
    import torch
    return torch.utils.data.DataLoader(list(range(64)), batch_size=8)


if __name__ == "__main__":
    main()
